//! Mesh numbers: a slot names its route's mesh by a small number.
//!
//! A slot is two cache lines, sixteen words; its sequence, key, route and
//! expiry take fifteen of them with the mesh as one word, and the mesh's
//! name (three words) would not fit. So each table numbers the meshes its
//! entries name: [`MESHES`] cells hold the names, a slot holds the number,
//! and the writers count the entries naming each number, so that a number
//! no entry uses goes to the next new mesh. A route of a mesh beyond the
//! numbered ones is not kept (a miss: the store is read).
//!
//! Giving a number to another mesh under readers is safe only because a
//! reader loads the name with the slot's words and checks the slot's
//! sequence after ([`Table::mesh_number`]); that argument is kept here,
//! next to the numbering it protects.

use std::sync::atomic::{AtomicU64, Ordering, fence};

use super::table::{Counts, Table};
use crate::ids::MeshName;

/// Distinct mesh names a table's entries may name at once (a slot names
/// its mesh by number; a number no entry uses is given to the next new
/// mesh).
pub(crate) const MESHES: usize = 256;

impl Counts {
    /// An entry naming mesh number `mesh` leaves its slot.
    pub(super) fn forget_mesh(&mut self, mesh: u64) {
        if let Some(uses) = self.mesh_uses.get_mut(mesh as usize) {
            debug_assert!(*uses > 0, "mesh {mesh} forgotten more often than used");
            *uses = uses.saturating_sub(1);
        }
    }
}

/// The name a mesh number stands for, as [`MeshName::to_words`] (all zero:
/// none yet). A reader loads it with the slot's other words, before it
/// checks the slot's sequence, so a number given to another mesh since the
/// slot was read is caught as any other change of the slot is (see
/// [`Table::mesh_number`]). Aligned so that a name never straddles two
/// cache lines.
#[repr(align(32))]
pub(super) struct MeshCell(pub(super) [AtomicU64; 3]);

impl MeshCell {
    pub(super) fn load(&self) -> [u64; 3] {
        std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed))
    }
}

impl Table {
    /// The number of `mesh` in this table: the one it has, else one no
    /// entry uses, given to it now (writers only); None if every number is
    /// in use.
    ///
    /// A number given again is safe for readers: every slot that named it
    /// was emptied or rewritten first (its sequence moved on), and the
    /// release fence below orders those writes before the new name's. A
    /// reader that loads any word of the new name for a slot it read
    /// before that (its acquire fence pairing with this one) then sees
    /// the slot's sequence moved, and takes a miss.
    pub(super) fn mesh_number(&self, mesh: MeshName, counts: &Counts) -> Option<u64> {
        let words = mesh.to_words();
        let mut unused = None;
        for (i, cell) in self.meshes.iter().enumerate() {
            if cell.load() == words {
                return Some(i as u64);
            }
            if unused.is_none() && counts.mesh_uses[i] == 0 {
                unused = Some(i);
            }
        }
        let i = unused?;
        fence(Ordering::Release);
        for (cell, word) in self.meshes[i].0.iter().zip(words) {
            cell.store(word, Ordering::Relaxed);
        }
        Some(i as u64)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::cache::table::Table;
    use crate::cache::table::testing::{entry, entry_in, key, spawn_readers};
    use crate::clock::MonoTime;

    #[test]
    fn a_route_of_a_mesh_beyond_the_numbered_ones_is_not_kept_nor_its_older_one() {
        let t = Table::new(1000);
        // "x" shares its mesh with "y": its going frees no number.
        t.insert(&key("x"), entry(1, 1, 100), MonoTime(0), |_| false);
        t.insert(&key("y"), entry(1, 1, 100), MonoTime(0), |_| false);
        for i in 1..MESHES {
            let id = format!("m{i}");
            t.insert(&key(&id), entry_in(&id, 1, 1, 100), MonoTime(0), |_| false);
        }
        assert!(t.entry_of(&key("x")).is_some());
        assert!(t.entry_of(&key(&format!("m{}", MESHES - 1))).is_some());
        let stored = t.insert(&key("x"), entry_in("new", 2, 2, 100), MonoTime(0), |_| {
            false
        });
        assert_eq!(stored, (false, 0));
        assert_eq!(t.entry_of(&key("x")), None, "the older route went");
        assert_eq!(t.entry_of(&key("y")), Some(entry(1, 1, 100)));
    }

    #[test]
    fn a_keys_own_route_frees_the_number_its_new_route_needs() {
        // Every number is in use; "m5" alone names mesh m5.
        let t = Table::new(1000);
        for i in 0..MESHES {
            let id = format!("m{i}");
            t.insert(&key(&id), entry_in(&id, 1, 1, 100), MonoTime(0), |_| false);
        }
        let kept = entry_in("elsewhere", 2, 2, 100);
        // A route its older one outranks is not taken, and the older stays.
        assert_eq!(
            t.insert(&key("m5"), kept, MonoTime(0), |_| true),
            (false, 0)
        );
        assert_eq!(t.entry_of(&key("m5")), Some(entry_in("m5", 1, 1, 100)));
        // A newer one takes the number the older route gives up.
        assert_eq!(
            t.insert(&key("m5"), kept, MonoTime(0), |_| false),
            (true, 0)
        );
        assert_eq!(t.entry_of(&key("m5")), Some(kept));
        assert_eq!(t.entry_of(&key("m6")), Some(entry_in("m6", 1, 1, 100)));
    }

    #[test]
    fn a_mesh_number_no_entry_uses_goes_to_the_next_new_mesh() {
        let t = Table::new(2000);
        let first = |i: usize| entry_in(&format!("m{i}"), 1, 1, if i == 11 { 50 } else { 100 });
        for i in 0..MESHES {
            t.insert(&key(&format!("m{i}")), first(i), MonoTime(0), |_| false);
        }
        let late = entry_in("late", 2, 2, 100);
        assert_eq!(
            t.insert(&key("late"), late, MonoTime(0), |_| false),
            (false, 0)
        );
        // The one entry of mesh m7 is removed, m9's is replaced by a route
        // of a mesh already numbered, and m11's expires and is dropped when
        // the array moves on (it grows as more routes come): three numbers
        // are free.
        assert!(t.remove_if(&key("m7"), |_| true).is_some());
        let moved = entry_in("m0", 3, 3, 100);
        assert!(t.insert(&key("m9"), moved, MonoTime(0), |_| false).0);
        for f in 0..300 {
            let filler = entry_in("m0", 1, 1, 100);
            t.insert(&key(&format!("f{f}")), filler, MonoTime(60), |_| false);
        }
        assert_eq!(t.entry_of(&key("m11")), None, "dropped as expired");
        for (i, id) in ["late", "later", "latest"].into_iter().enumerate() {
            let e = entry_in(id, 10 + i as u64, 1, 100);
            assert_eq!(
                t.insert(&key(id), e, MonoTime(60), |_| false),
                (true, 0),
                "{id}"
            );
            assert_eq!(t.entry_of(&key(id)), Some(e));
        }
        // A fourth new mesh finds every number in use again.
        let e = entry_in("one-too-many", 1, 1, 100);
        assert_eq!(t.insert(&key("x"), e, MonoTime(60), |_| false), (false, 0));
        // Every other entry still reads back under its own mesh.
        for i in (0..MESHES).filter(|i| ![7, 9, 11].contains(i)) {
            assert_eq!(t.entry_of(&key(&format!("m{i}"))), Some(first(i)), "m{i}");
        }
        assert_eq!(t.entry_of(&key("m9")), Some(moved));
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
