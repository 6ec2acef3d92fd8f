//! Mesh numbers: a slot names its route's mesh by a number.
//!
//! A slot is two cache lines, sixteen words; its sequence, key, route and
//! expiry take fifteen of them with the mesh as one word, and the mesh's
//! name (three words) would not fit. So each table numbers the meshes its
//! entries name: cells hold the names, a slot holds the number, and the
//! writers count the entries naming each number, so that a number no entry
//! uses goes to the next new mesh. When every number is in use a new one
//! is made: a number in use is named by at least one slot, so there are
//! never more numbers than slots and any number of meshes is cached. (An
//! expired entry keeps its number until its slot is reused or the array
//! moves on; that only delays the number's reuse.)
//!
//! Giving a number to another mesh under readers is safe only because a
//! reader loads the name with the slot's words and checks the slot's
//! sequence after ([`Table::mesh_number`]); that argument is kept here,
//! next to the numbering it protects.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering, fence};

use super::table::Table;
use crate::ids::MeshName;

/// Mesh numbers whose cells live in the table itself: a table whose
/// entries name at most this many meshes at once never follows a pointer
/// to a name. Cells past them come in pages of as many.
pub(crate) const MESHES: usize = 256;

/// The name a mesh number stands for, as [`MeshName::to_words`] (all zero:
/// none yet). A reader loads it with the slot's other words, before it
/// checks the slot's sequence, so a number given to another mesh since the
/// slot was read is caught as any other change of the slot is (see
/// [`Table::mesh_number`]). Aligned so that a name never straddles two
/// cache lines.
#[repr(align(32))]
pub(super) struct MeshCell(pub(super) [AtomicU64; 3]);

impl MeshCell {
    fn empty() -> MeshCell {
        MeshCell([const { AtomicU64::new(0) }; 3])
    }

    pub(super) fn load(&self) -> [u64; 3] {
        std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed))
    }
}

/// The names of a table's mesh numbers: the first [`MESHES`] in place,
/// the rest in pages made (by a writer) when a number first needs one.
pub(super) struct MeshCells {
    first: [MeshCell; MESHES],
    /// Enough pages for one number per slot of the largest array.
    more: Box<[OnceLock<Box<[MeshCell; MESHES]>>]>,
}

impl MeshCells {
    /// Cells for up to `numbers` mesh numbers.
    pub(super) fn new(numbers: usize) -> MeshCells {
        let pages = numbers.saturating_sub(MESHES).div_ceil(MESHES);
        MeshCells {
            first: std::array::from_fn(|_| MeshCell::empty()),
            more: (0..pages).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The cell of number `n`, if its page was made. A reader got `n`
    /// from a slot a writer stored after making the page.
    #[inline]
    pub(super) fn get(&self, n: u64) -> Option<&MeshCell> {
        let n = usize::try_from(n).ok()?;
        match n.checked_sub(MESHES) {
            None => self.first.get(n),
            Some(past) => Some(&self.more.get(past / MESHES)?.get()?[past % MESHES]),
        }
    }

    /// The cell of number `n`, its page made if need be (writers only);
    /// None past the last page.
    fn make(&self, n: usize) -> Option<&MeshCell> {
        match n.checked_sub(MESHES) {
            None => self.first.get(n),
            Some(past) => {
                let page = self.more.get(past / MESHES)?;
                Some(
                    &page.get_or_init(|| Box::new(std::array::from_fn(|_| MeshCell::empty())))
                        [past % MESHES],
                )
            }
        }
    }
}

/// The writers' side of the numbering, kept under the writers' lock.
#[derive(Default)]
pub(super) struct MeshUses {
    /// Entries naming each number given so far: a number at 0 may name
    /// another mesh.
    uses: Vec<u32>,
    /// The number each named mesh has now.
    numbers: HashMap<[u64; 3], u64>,
    /// Numbers whose uses fell to 0 (some may be in use again since, by
    /// the same mesh: each is checked when taken), each once.
    free: Vec<u64>,
    /// Whether each number is in `free`.
    listed: Vec<bool>,
}

impl MeshUses {
    /// An entry naming number `mesh` took a slot.
    pub(super) fn add(&mut self, mesh: u64) {
        if let Some(uses) = self.uses.get_mut(mesh as usize) {
            *uses += 1;
        }
    }

    /// An entry naming number `mesh` left its slot.
    pub(super) fn forget(&mut self, mesh: u64) {
        if let Some(uses) = self.uses.get_mut(mesh as usize) {
            debug_assert!(*uses > 0, "mesh {mesh} forgotten more often than used");
            *uses = uses.saturating_sub(1);
            if *uses == 0 && !std::mem::replace(&mut self.listed[mesh as usize], true) {
                self.free.push(mesh);
            }
        }
    }

    /// Starts counting again (an array move drops expired entries): every
    /// number keeps its name; [`add`](Self::add) each entry's, then
    /// [`recounted`](Self::recounted).
    pub(super) fn recount(&mut self) {
        self.uses.iter_mut().for_each(|u| *u = 0);
    }

    /// Counted again: the numbers no entry names are free.
    pub(super) fn recounted(&mut self) {
        self.free = (0..self.uses.len() as u64)
            .filter(|&n| self.uses[n as usize] == 0)
            .collect();
        self.listed = self.uses.iter().map(|&u| u == 0).collect();
    }

    /// Numbers given so far.
    #[cfg(test)]
    pub(super) fn given(&self) -> usize {
        self.uses.len()
    }

    /// A number for a mesh that has none: a free one, else the next new
    /// one; None when every cell is taken.
    fn take(&mut self, cells: &MeshCells) -> Option<u64> {
        while let Some(n) = self.free.pop() {
            self.listed[n as usize] = false;
            if self.uses[n as usize] == 0 {
                return Some(n);
            }
        }
        let n = self.uses.len();
        cells.make(n)?;
        self.uses.push(0);
        self.listed.push(false);
        Some(n as u64)
    }
}

impl Table {
    /// The number of `mesh` in this table: the one it has, else one no
    /// entry uses or a new one, given to it now (writers only); None only
    /// if every cell is taken, which one number per slot never reaches.
    ///
    /// A number given again is safe for readers: every slot that named it
    /// was emptied or rewritten first (its sequence moved on), and the
    /// release fence below orders those writes before the new name's. A
    /// reader that loads any word of the new name for a slot it read
    /// before that (its acquire fence pairing with this one) then sees
    /// the slot's sequence moved, and takes a miss.
    pub(super) fn mesh_number(&self, mesh: MeshName, uses: &mut MeshUses) -> Option<u64> {
        let words = mesh.to_words();
        if let Some(&n) = uses.numbers.get(&words) {
            return Some(n);
        }
        let n = uses.take(&self.meshes)?;
        let cell = self.meshes.make(n as usize)?;
        uses.numbers.remove(&cell.load());
        uses.numbers.insert(words, n);
        fence(Ordering::Release);
        for (word, value) in cell.0.iter().zip(words) {
            word.store(value, Ordering::Relaxed);
        }
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::cache::table::Table;
    use crate::cache::table::testing::{entry_in, key, spawn_readers};
    use crate::clock::MonoTime;

    #[test]
    fn a_257th_mesh_is_kept_after_256_meshes_entries_expired() {
        // The defect this numbering fixed: expired entries kept their
        // numbers, so once 256 meshes had been named no route of a new
        // mesh was ever kept again (every resolve read the store).
        let t = Table::new(1000);
        for i in 0..MESHES {
            let id = format!("m{i}");
            t.insert(&key(&id), entry_in(&id, 1, 1, 100), MonoTime(0), |_| false);
        }
        let late = entry_in("late", 2, 2, 300);
        assert_eq!(
            t.insert(&key("late"), late, MonoTime(200), |_| false),
            (true, 0)
        );
        assert_eq!(t.get(&key("late"), MonoTime(200)), Some(late.route));
        // While all 256 are live a 257th is kept too.
        let t = Table::new(1000);
        for i in 0..=MESHES {
            let id = format!("m{i}");
            let e = entry_in(&id, 1, 1, 100);
            assert_eq!(t.insert(&key(&id), e, MonoTime(0), |_| false), (true, 0));
        }
        for i in 0..=MESHES {
            let id = format!("m{i}");
            assert_eq!(
                t.entry_of(&key(&id)),
                Some(entry_in(&id, 1, 1, 100)),
                "{id}"
            );
        }
    }

    #[test]
    fn ten_thousand_meshes_churning_are_all_kept_and_numbers_stay_bounded() {
        // 500 keys, each moving to a new mesh every round: 10,000 meshes,
        // half of the routes left to expire, the others replaced or removed.
        let t = Table::new(1000);
        let slots = t.max_groups * crate::cache::table::GROUP;
        for n in 0..10_000u64 {
            let (id, mesh) = (format!("k{}", n % 500), format!("mesh-{n}"));
            let now = MonoTime(n);
            let e = entry_in(&mesh, n, n, n + 50);
            assert!(t.insert(&key(&id), e, now, |_| false).0, "{mesh}");
            assert_eq!(t.get(&key(&id), now), Some(e.route), "{mesh}");
            if n % 7 == 0 {
                assert!(t.remove_if(&key(&id), |_| true).is_some());
            }
            assert!(
                t.lock().meshes.given() <= slots + 1,
                "at most one number per slot"
            );
        }
        // A number no entry uses goes to the next new mesh: the count of
        // numbers given stops growing once the churn is steady.
        let given = t.lock().meshes.given();
        for n in 10_000..12_000u64 {
            let (id, mesh) = (format!("k{}", n % 500), format!("mesh-{n}"));
            assert!(
                t.insert(
                    &key(&id),
                    entry_in(&mesh, n, n, n + 50),
                    MonoTime(n),
                    |_| false
                )
                .0
            );
        }
        assert!(t.lock().meshes.given() <= given.max(slots + 1));
    }

    #[test]
    fn a_mesh_number_no_entry_uses_goes_to_the_next_new_mesh() {
        let t = Table::new(2000);
        for i in 0..MESHES {
            t.insert(
                &key(&format!("m{i}")),
                entry_in(&format!("m{i}"), 1, 1, 100),
                MonoTime(0),
                |_| false,
            );
        }
        assert_eq!(t.lock().meshes.given(), MESHES);
        // The one entry of mesh m7 is removed, m9's is replaced by a route
        // of a mesh already numbered: two numbers are free, and the next
        // two new meshes take them.
        assert!(t.remove_if(&key("m7"), |_| true).is_some());
        let moved = entry_in("m0", 3, 3, 100);
        assert!(t.insert(&key("m9"), moved, MonoTime(0), |_| false).0);
        for id in ["late", "later"] {
            assert!(
                t.insert(&key(id), entry_in(id, 2, 2, 100), MonoTime(0), |_| false)
                    .0
            );
        }
        assert_eq!(t.lock().meshes.given(), MESHES, "no new number");
        // A third new mesh gets a new one, past the table's own cells.
        assert!(
            t.insert(&key("x"), entry_in("x", 2, 2, 100), MonoTime(0), |_| false)
                .0
        );
        assert_eq!(t.lock().meshes.given(), MESHES + 1);
        for (id, mesh) in [
            ("late", "late"),
            ("later", "later"),
            ("x", "x"),
            ("m9", "m0"),
            ("m8", "m8"),
        ] {
            assert_eq!(
                t.entry_of(&key(id))
                    .map(|e| e.route.route.mesh.as_str().to_owned()),
                Some(mesh.into())
            );
        }
    }

    #[test]
    fn a_number_given_to_another_mesh_never_shows_under_an_older_entry() {
        // Every number but one is held for good; "x" (of mesh "mx") and "y"
        // (of a new mesh each time) take turns with the last one, so its
        // name changes all the time under readers of "x".
        let t = Arc::new(Table::new(1000));
        for i in 0..MESHES - 1 {
            let id = format!("m{i}");
            t.insert(
                &key(&id),
                entry_in(&id, 1, 1, u64::MAX),
                MonoTime(0),
                |_| false,
            );
        }
        let stop = Arc::new(AtomicBool::new(false));
        let readers = spawn_readers(&t, &stop, |t| {
            let route = t.get(&key("x"), MonoTime(0));
            route
                .inspect(|r| assert_eq!(r.route.mesh.as_str(), "mx"))
                .is_some() as u64
        });
        for n in 0..20_000u64 {
            let x = entry_in("mx", 1, n, u64::MAX);
            assert!(t.insert(&key("x"), x, MonoTime(0), |_| false).0);
            assert!(t.remove_if(&key("x"), |_| true).is_some());
            let y = entry_in(&format!("y{n}"), 1, n, u64::MAX);
            assert!(t.insert(&key("y"), y, MonoTime(0), |_| false).0, "{n}");
            assert!(t.remove_if(&key("y"), |_| true).is_some());
        }
        stop.store(true, Ordering::Relaxed);
        let seen: u64 = readers
            .into_iter()
            .map(|r| r.join().expect("never another mesh"))
            .sum();
        assert!(seen > 0, "the readers found x at least once");
    }
}
