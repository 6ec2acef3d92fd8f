//! Handles that survive misuse, for hosts that hold objects by number (the
//! C ABI's pointers, the JVM's `long`s): a freed or foreign handle is an
//! error, never a use of freed memory. The rule for use after close, once.
//!
//! A handle is not an address. Its bits encode a slot index in a registry
//! that is never deallocated, the slot's generation at creation and a type
//! tag:
//!
//! ```text
//! bits 63..24  generation (40 bits, from one process-wide counter, never 0)
//! bits 23..4   slot index (20 bits)
//! bits  3..0   type tag (odd: one per registry)
//! ```
//!
//! Freeing a handle empties its slot, so every later use of the old bits
//! fails the generation check (the counter never repeats, so a reused slot
//! never matches an old handle). A pointer to real memory is at least
//! 2-aligned, so its low nibble is never an odd tag: foreign pointers fail
//! the tag check before any lookup.
//!
//! # Pinning without a shared write
//!
//! A call pins the object while it uses it, and `remove` waits for the
//! calls in flight to leave: even a free racing a call on another thread is
//! safe (the call finishes on a live object, later calls get `Invalid`).
//! Pinning writes nothing another thread reads in the common case, so
//! threads calling the same handle never contend on a cache line:
//!
//! - Each thread owns a pin record (cache-line aligned, made on its first
//!   call, reused by a later thread after it exits). A call writes its
//!   handle into a free entry of its record (a plain store), then checks
//!   the slot's generation; leaving clears the entry (a release store).
//! - `remove` marks the slot dead (generation 0), issues a heavy barrier,
//!   then waits until no record holds the handle; only then does it take
//!   the object out of the slot.
//! - The two sides form a Dekker pair: the call stores its pin then loads
//!   the generation, `remove` stores the generation then loads the pins. On
//!   Linux the heavy barrier is `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`:
//!   it runs a full barrier on every CPU running a thread of this process,
//!   so the call side needs only a compiler fence (no fence instruction, no
//!   locked instruction). Either a call's pin store came before that barrier
//!   on its CPU (then `remove` sees the pin and waits), or its generation
//!   load came after it (then it sees the slot dead). Elsewhere, or where
//!   the kernel refuses membarrier, both sides use a `SeqCst` fence.
//! - A thread holding `DEPTH` pins at once, or whose thread-local storage is
//!   gone (a call from another thread-local's destructor), pins through the
//!   slot's shared counter instead (a `SeqCst` read-modify-write), which
//!   `remove` also waits for.
//!
//! `remove` on a thread holding a pin of the same handle would wait for
//! itself: hosts refuse that before (a runtime's own completion callback
//! gets `WrongThread`).
//!
//! This module is one of the places unsafe code lives outside `ffi-c` and
//! the JNI crate (DESIGN §9): reading the object behind a slot without a
//! lock needs a raw pointer, and the membarrier system call an FFI
//! declaration. Each block says why it holds.
#![allow(unsafe_code)]

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, ErrorKind, Result};

const CHUNK: usize = 256;
const CHUNKS: usize = 4096;
const INDEX_BITS: u32 = 20;
const GENERATION_SHIFT: u32 = 4 + INDEX_BITS;
const GENERATION_MAX: u64 = (1 << (64 - GENERATION_SHIFT)) - 1;

/// Pins one thread may hold at once in its record (nested calls: a
/// runtime and a store, a frame and a runtime); more go through the
/// slot's shared counter.
const DEPTH: usize = 8;

const _: () = assert!(CHUNK * CHUNKS == 1 << INDEX_BITS);
const _: () = assert!(usize::BITS == 64, "handles encode 64-bit values");

/// Generations for every slot of every registry: unique for the process.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

/// Why a handle could not be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandleError {
    /// The handle is null.
    Null,
    /// Freed, of another type, or never made by this library.
    Invalid,
    /// Every slot is in use.
    Exhausted,
}

impl HandleError {
    /// The error a host reports, naming the handle's type (`what`).
    pub fn error(self, what: &str) -> Error {
        match self {
            HandleError::Null => crate::args::missing(what),
            HandleError::Invalid => Error::host(
                ErrorKind::InvalidHandle,
                format!("{what} is freed, foreign or not a {what}"),
            ),
            HandleError::Exhausted => Error::host(ErrorKind::Exhausted, "too many live handles"),
        }
    }
}

/// One handle's place in a registry.
struct Slot<T> {
    /// The live object's generation; 0 while empty or being freed.
    generation: AtomicU64,
    /// The registry's reference to the live object (`Arc::into_raw`), null
    /// while empty. Written only by `insert` (before the generation) and
    /// `remove` (after the generation is 0 and no pin is left).
    object: AtomicPtr<T>,
    /// Pins taken without a thread's record.
    shared_pins: AtomicUsize,
}

impl<T> Slot<T> {
    fn empty() -> Self {
        Slot {
            generation: AtomicU64::new(0),
            object: AtomicPtr::new(std::ptr::null_mut()),
            shared_pins: AtomicUsize::new(0),
        }
    }
}

/// A chunk of slots, made when first used.
type Chunk<T> = OnceLock<Box<[Slot<T>]>>;

/// One registry per handle type, in a `static`.
pub struct Registry<T> {
    tag: usize,
    chunks: [Chunk<T>; CHUNKS],
    /// Slot allocation and release (cold paths only).
    alloc: Mutex<Alloc>,
    /// Live handles (a host's leak check).
    live: AtomicUsize,
    /// The slots own `Arc<T>`s: the registry is `Send`/`Sync` as they are.
    _owns: PhantomData<Arc<T>>,
}

struct Alloc {
    free: Vec<usize>,
    next: usize,
}

/// A pinned use of a live object: it is not dropped while this lives.
/// It belongs to the thread that pinned (its record entry), so it is
/// neither `Send` nor `Sync`.
pub struct Pinned<'a, T> {
    object: &'a T,
    _pin: Pin<'a>,
    _thread: PhantomData<*const ()>,
}

impl<T> std::ops::Deref for Pinned<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.object
    }
}

impl<T: Send + Sync> Registry<T> {
    /// An empty registry whose handles carry `tag` (odd, < 16).
    pub const fn new(tag: usize) -> Self {
        assert!(tag % 2 == 1 && tag < 16);
        Registry {
            tag,
            chunks: [const { OnceLock::new() }; CHUNKS],
            alloc: Mutex::new(Alloc {
                free: Vec::new(),
                next: 0,
            }),
            live: AtomicUsize::new(0),
            _owns: PhantomData,
        }
    }

    /// How many handles are live now.
    pub fn live(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    #[inline]
    fn slot(&self, index: usize) -> Option<&Slot<T>> {
        let chunk = self.chunks.get(index / CHUNK)?.get()?;
        chunk.get(index % CHUNK)
    }

    /// Registers `object` and returns its handle value.
    pub fn insert(&self, object: Arc<T>) -> Result<usize, HandleError> {
        // Before the first handle exists: a call decides its barrier by a
        // flag this sets once.
        barrier::init();
        let generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
        if generation > GENERATION_MAX {
            return Err(HandleError::Exhausted);
        }
        let mut alloc = self.alloc.lock().unwrap_or_else(|p| p.into_inner());
        let index = match alloc.free.pop() {
            Some(i) => i,
            None if alloc.next < CHUNK * CHUNKS => {
                alloc.next += 1;
                alloc.next - 1
            }
            None => return Err(HandleError::Exhausted),
        };
        let chunk =
            self.chunks[index / CHUNK].get_or_init(|| (0..CHUNK).map(|_| Slot::empty()).collect());
        let slot = &chunk[index % CHUNK];
        // The object before the generation (release): a call that sees the
        // generation sees the object.
        slot.object
            .store(Arc::into_raw(object).cast_mut(), Ordering::Relaxed);
        slot.generation.store(generation, Ordering::Release);
        self.live.fetch_add(1, Ordering::Relaxed);
        Ok(((generation as usize) << GENERATION_SHIFT) | (index << 4) | self.tag)
    }

    #[inline]
    fn decode(&self, handle: usize) -> Result<(usize, u64), HandleError> {
        if handle == 0 {
            return Err(HandleError::Null);
        }
        if handle & 0xF != self.tag {
            return Err(HandleError::Invalid);
        }
        let index = (handle >> 4) & ((1 << INDEX_BITS) - 1);
        Ok((index, (handle >> GENERATION_SHIFT) as u64))
    }

    /// Pins the live object behind `handle` for the length of a call.
    #[inline]
    pub fn get(&self, handle: usize) -> Result<Pinned<'_, T>, HandleError> {
        let (index, generation) = self.decode(handle)?;
        let slot = self.slot(index).ok_or(HandleError::Invalid)?;
        // The pin before the generation check: `remove` marks the slot dead
        // before it looks for pins (the module's Dekker pair).
        let pin = Pin::take(handle, &slot.shared_pins);
        if slot.generation.load(Ordering::Acquire) != generation {
            return Err(HandleError::Invalid);
        }
        let object = slot.object.load(Ordering::Acquire);
        if object.is_null() {
            return Err(HandleError::Invalid);
        }
        // SAFETY: the slot held this handle's generation after the pin was
        // published, so `remove` of this handle either has not marked the
        // slot dead yet or will find the pin: it takes the object out (and
        // drops the registry's reference) only after the pin is released,
        // and the slot is reused only after that. `object` came from
        // `Arc::into_raw` in `insert` and stays valid until then.
        let object = unsafe { &*object };
        Ok(Pinned {
            object,
            _pin: pin,
            _thread: PhantomData,
        })
    }

    /// Unregisters `handle` and returns the registry's reference, after
    /// every call using it has left. Later uses of `handle` fail.
    pub fn remove(&self, handle: usize) -> Result<Arc<T>, HandleError> {
        let (index, generation) = self.decode(handle)?;
        let slot = self.slot(index).ok_or(HandleError::Invalid)?;
        // Only one remover wins the slot; every later call sees it dead.
        slot.generation
            .compare_exchange(generation, 0, Ordering::AcqRel, Ordering::Relaxed)
            .map_err(|_| HandleError::Invalid)?;
        barrier::heavy();
        wait_unpinned(handle, &slot.shared_pins);
        let object = slot.object.swap(std::ptr::null_mut(), Ordering::Acquire);
        // SAFETY: the generation matched, so the slot held this handle's
        // object (non-null, from `Arc::into_raw` in `insert`); the winning
        // exchange made this call its only remover, and no pin is left nor
        // can be taken (calls now see generation 0), so the registry's
        // reference is handed back exactly once.
        let object = unsafe { Arc::from_raw(object) };
        let mut alloc = self.alloc.lock().unwrap_or_else(|p| p.into_inner());
        alloc.free.push(index);
        self.live.fetch_sub(1, Ordering::Relaxed);
        Ok(object)
    }
}

impl<T> Drop for Registry<T> {
    fn drop(&mut self) {
        for chunk in self.chunks.iter_mut().filter_map(OnceLock::get_mut) {
            for slot in chunk.iter_mut() {
                let object = *slot.object.get_mut();
                if !object.is_null() {
                    // SAFETY: a non-null object is the registry's own
                    // reference (`Arc::into_raw` in `insert`); `&mut self`
                    // means no call holds a pin.
                    drop(unsafe { Arc::from_raw(object) });
                }
            }
        }
    }
}

impl<T: Send + Sync> Registry<T> {
    /// `get`, with the error a host reports for a handle of type `what`.
    #[inline]
    pub fn pin(&self, handle: usize, what: &str) -> Result<Pinned<'_, T>> {
        self.get(handle).map_err(|e| e.error(what))
    }

    /// `insert`, with the error a host reports.
    pub fn register(&self, object: T, what: &str) -> Result<usize> {
        self.insert(Arc::new(object)).map_err(|e| e.error(what))
    }

    /// `remove`, with the error a host reports; the null handle frees
    /// nothing.
    pub fn free(&self, handle: usize, what: &str) -> Result<Option<Arc<T>>> {
        if handle == 0 {
            return Ok(None);
        }
        self.remove(handle).map(Some).map_err(|e| e.error(what))
    }
}

// ---------------------------------------------------------------- pins

/// A thread's pins: `DEPTH` entries, each 0 or a pinned handle. Aligned
/// so that no two threads' records share a cache line (nor the adjacent
/// line the prefetcher pairs with it).
#[repr(align(128))]
struct Record {
    /// Written only by the owning thread; read by `remove` on any thread.
    pins: [AtomicUsize; DEPTH],
    /// A live thread owns this record.
    owned: AtomicBool,
}

/// Every record ever made (a few per thread count, never freed): `remove`
/// scans them, a new thread adopts one a finished thread left.
static RECORDS: Mutex<Vec<&'static Record>> = Mutex::new(Vec::new());

thread_local! {
    /// This thread's record: constant-initialised without a destructor, so
    /// reading it is one thread-local load.
    static RECORD: Cell<Option<&'static Record>> = const { Cell::new(None) };
    /// Gives the record back when the thread exits.
    static OWNER: Owner = const { Owner(Cell::new(None)) };
}

struct Owner(Cell<Option<&'static Record>>);

impl Drop for Owner {
    fn drop(&mut self) {
        if let Some(record) = self.0.take() {
            // A later call on this thread (another thread-local's
            // destructor) pins through the shared counter instead.
            let _ = RECORD.try_with(|r| r.set(None));
            record.owned.store(false, Ordering::Release);
        }
    }
}

impl Record {
    /// Takes a free entry for `handle`: the first is free unless calls
    /// nest. One load and one store (no bookkeeping of which entries are
    /// used: a call's stores are what a cache-missing lookup queues behind).
    #[inline]
    fn take(&self, handle: usize) -> Option<usize> {
        // Only this thread writes its entries: its own loads see them.
        let i = self
            .pins
            .iter()
            .position(|p| p.load(Ordering::Relaxed) == 0)?;
        self.pins[i].store(handle, Ordering::Relaxed);
        Some(i)
    }

    #[inline]
    fn release(&self, i: usize) {
        // Release: the call's uses of the object happen before `remove`
        // sees the entry clear.
        self.pins[i].store(0, Ordering::Release);
    }
}

/// This thread's record, adopted or made on its first call; None once the
/// thread's thread-locals are being destroyed.
#[inline]
fn my_record() -> Option<&'static Record> {
    match RECORD.try_with(Cell::get) {
        Ok(Some(record)) => Some(record),
        _ => adopt_record(),
    }
}

#[cold]
fn adopt_record() -> Option<&'static Record> {
    OWNER
        .try_with(|owner| {
            if let Some(record) = owner.0.get() {
                return record;
            }
            let mut records = RECORDS.lock().unwrap_or_else(|p| p.into_inner());
            let adopted = records.iter().copied().find(|r| {
                r.owned
                    .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            });
            let record = adopted.unwrap_or_else(|| {
                let record: &'static Record = Box::leak(Box::new(Record {
                    pins: [const { AtomicUsize::new(0) }; DEPTH],
                    owned: AtomicBool::new(true),
                }));
                records.push(record);
                record
            });
            drop(records);
            owner.0.set(Some(record));
            RECORD.with(|r| r.set(Some(record)));
            record
        })
        .ok()
}

/// How a call holds its pin.
enum Pin<'a> {
    /// An entry of this thread's record.
    Record(&'static Record, usize),
    /// The slot's shared counter.
    Shared(&'a AtomicUsize),
}

impl<'a> Pin<'a> {
    /// Publishes a pin of `handle` (whose slot's counter is `shared`),
    /// ordered before the loads that follow.
    #[inline]
    fn take(handle: usize, shared: &'a AtomicUsize) -> Self {
        if let Some(record) = my_record()
            && let Some(i) = record.take(handle)
        {
            barrier::light();
            return Pin::Record(record, i);
        }
        // A locked read-modify-write is a full barrier by itself.
        shared.fetch_add(1, Ordering::SeqCst);
        Pin::Shared(shared)
    }
}

impl Drop for Pin<'_> {
    #[inline]
    fn drop(&mut self) {
        match self {
            Pin::Record(record, i) => record.release(*i),
            Pin::Shared(shared) => {
                shared.fetch_sub(1, Ordering::Release);
            }
        }
    }
}

/// Returns once every call that pinned `handle` before it was marked dead
/// has left (its slot is already dead and the heavy barrier issued, so a
/// later pin of it fails its check without using the object).
fn wait_unpinned(handle: usize, shared: &AtomicUsize) {
    // A snapshot: a record made later belongs to a thread whose pins come
    // after this point and see the slot dead.
    let records = RECORDS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    // Each entry needs to be seen free of `handle` once: a call that keeps
    // using the dead handle pins it again, but those pins fail, so the free
    // never waits on them twice.
    for entry in records.iter().flat_map(|r| &r.pins) {
        let mut rounds = 0;
        while entry.load(Ordering::Acquire) == handle {
            back_off(&mut rounds);
        }
    }
    let mut rounds = 0;
    while shared.load(Ordering::Acquire) != 0 {
        back_off(&mut rounds);
    }
}

/// Waits a little longer each round: a pin is held for a call (nanoseconds
/// for a cache hit, up to the store timeout for a blocking read).
fn back_off(rounds: &mut u32) {
    *rounds += 1;
    if *rounds < 64 {
        std::hint::spin_loop();
    } else if *rounds < 128 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(std::time::Duration::from_micros(50));
    }
}

/// The two halves of the asymmetric barrier.
mod barrier {
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, Ordering, compiler_fence, fence};

    /// The kernel runs `heavy`'s barrier on every thread of the process:
    /// calls need only a compiler fence.
    static EXPEDITED: AtomicBool = AtomicBool::new(false);

    /// Registers for expedited membarriers, once, before the first handle.
    pub(super) fn init() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            if sys::register() {
                EXPEDITED.store(true, Ordering::Relaxed);
            }
        });
    }

    /// The call side: orders its pin store before its generation load.
    #[inline]
    pub(super) fn light() {
        if EXPEDITED.load(Ordering::Relaxed) {
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    /// The free side: after it, every call either shows its pin or sees
    /// the slot dead.
    pub(super) fn heavy() {
        fence(Ordering::SeqCst);
        if !EXPEDITED.load(Ordering::Relaxed) {
            return;
        }
        if sys::expedited() || (sys::register() && sys::expedited()) {
            return;
        }
        // The kernel granted the registration once and refuses the
        // barrier now (it is inherited by `fork` and kept until `exec`, so
        // this is not expected): later calls fence themselves, and calls
        // racing this one had their pin stores drain from the store buffer
        // long before a scheduler tick.
        EXPEDITED.store(false, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(10));
        fence(Ordering::SeqCst);
    }

    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    mod sys {
        use std::ffi::{c_int, c_long, c_uint};

        #[cfg(target_arch = "x86_64")]
        const SYS_MEMBARRIER: c_long = 324;
        #[cfg(target_arch = "aarch64")]
        const SYS_MEMBARRIER: c_long = 283;
        const CMD_PRIVATE_EXPEDITED: c_int = 1 << 3;
        const CMD_REGISTER_PRIVATE_EXPEDITED: c_int = 1 << 4;

        unsafe extern "C" {
            fn syscall(number: c_long, ...) -> c_long;
        }

        fn membarrier(cmd: c_int) -> bool {
            // SAFETY: membarrier(2) takes (int cmd, unsigned flags, int
            // cpu_id) and reads or writes no memory of ours.
            unsafe { syscall(SYS_MEMBARRIER, cmd, 0 as c_uint, 0 as c_int) == 0 }
        }

        pub(super) fn register() -> bool {
            membarrier(CMD_REGISTER_PRIVATE_EXPEDITED)
        }

        pub(super) fn expedited() -> bool {
            membarrier(CMD_PRIVATE_EXPEDITED)
        }
    }

    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    mod sys {
        pub(super) fn register() -> bool {
            false
        }

        pub(super) fn expedited() -> bool {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    static REG: Registry<u32> = Registry::new(0x9);
    static OTHER: Registry<u32> = Registry::new(0xB);

    #[test]
    fn freed_foreign_and_null_handles_are_refused() {
        let h = REG.insert(Arc::new(7)).expect("room");
        assert_eq!(*REG.get(h).expect("live"), 7);
        assert_eq!(OTHER.get(h).err(), Some(HandleError::Invalid));
        assert_eq!(REG.get(0).err(), Some(HandleError::Null));
        let local = 5u64;
        let foreign = &local as *const u64 as usize;
        assert_eq!(REG.get(foreign).err(), Some(HandleError::Invalid));
        assert_eq!(*REG.remove(h).expect("live"), 7);
        assert_eq!(REG.get(h).err(), Some(HandleError::Invalid));
        assert_eq!(REG.remove(h).err(), Some(HandleError::Invalid));
        // The slot is reused under a new generation; the old handle stays dead.
        let h2 = REG.insert(Arc::new(8)).expect("room");
        assert_ne!(h, h2);
        assert_eq!(REG.get(h).err(), Some(HandleError::Invalid));
        assert_eq!(REG.remove(h).err(), Some(HandleError::Invalid));
        assert_eq!(*REG.get(h2).expect("still live"), 8);
        drop(REG.remove(h2));
    }

    #[test]
    fn a_free_waits_for_the_calls_in_flight() {
        let h = REG.insert(Arc::new(1)).expect("room");
        let pin = REG.get(h).expect("live");
        let freeing = std::thread::spawn(move || REG.remove(h).map(|o| *o));
        std::thread::sleep(Duration::from_millis(20));
        assert!(!freeing.is_finished(), "the free waits for the pin");
        assert_eq!(*pin, 1);
        drop(pin);
        assert_eq!(freeing.join().expect("no panic"), Ok(1));
    }

    #[test]
    fn a_free_waits_for_pins_beyond_a_threads_record() {
        // More pins than a record holds: the rest use the shared counter.
        let handles: Vec<usize> = (0..DEPTH as u32 + 3)
            .map(|i| REG.insert(Arc::new(i)).expect("room"))
            .collect();
        let pins: Vec<_> = handles.iter().map(|h| REG.get(*h).expect("live")).collect();
        let last = *handles.last().expect("some");
        let freeing = std::thread::spawn(move || REG.remove(last).map(|o| *o));
        std::thread::sleep(Duration::from_millis(20));
        assert!(!freeing.is_finished(), "the free waits for the shared pin");
        // Out of order: a pin is released by its own entry.
        for (i, pin) in pins.into_iter().enumerate().rev() {
            assert_eq!(*pin, i as u32);
        }
        assert_eq!(freeing.join().expect("no panic"), Ok(DEPTH as u32 + 2));
        for h in &handles[..handles.len() - 1] {
            assert!(REG.remove(*h).is_ok());
        }
    }

    #[test]
    fn records_of_finished_threads_are_reused() {
        let h = REG.insert(Arc::new(3)).expect("room");
        let before = RECORDS.lock().expect("records").len();
        for _ in 0..100 {
            std::thread::spawn(move || assert_eq!(*REG.get(h).expect("live"), 3))
                .join()
                .expect("no panic");
        }
        // Other tests run threads meanwhile; a record per thread would add 100.
        let after = RECORDS.lock().expect("records").len();
        assert!(
            after < before + 32,
            "{before} records before, {after} after"
        );
        drop(REG.remove(h));
    }

    /// What a racing call may observe: it is never dropped while pinned.
    struct Probe {
        in_use: AtomicUsize,
        dropped: Arc<AtomicBool>,
    }

    impl Drop for Probe {
        fn drop(&mut self) {
            assert_eq!(
                self.in_use.load(Ordering::SeqCst),
                0,
                "dropped while pinned"
            );
            self.dropped.store(true, Ordering::SeqCst);
        }
    }

    static PROBES: Registry<Probe> = Registry::new(0xD);

    #[test]
    fn frees_racing_many_threads_calls_never_drop_a_pinned_object() {
        // A free waits for calls preempted inside their pin: more threads
        // than cores make each round last a scheduler period or so.
        const THREADS: usize = 6;
        const ROUNDS: usize = 100;
        let current = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let callers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (current, stop) = (current.clone(), stop.clone());
                std::thread::spawn(move || {
                    let (mut hits, mut refused) = (0u64, 0u64);
                    while !stop.load(Ordering::Relaxed) {
                        let h = current.load(Ordering::Acquire);
                        // Some calls hold a second pin (nesting), some the
                        // same handle twice.
                        match PROBES.get(h) {
                            Ok(probe) => {
                                probe.in_use.fetch_add(1, Ordering::SeqCst);
                                assert!(!probe.dropped.load(Ordering::SeqCst));
                                // (Refused once a free has begun.)
                                if t % 2 == 0
                                    && let Ok(again) = PROBES.get(h)
                                {
                                    assert!(!again.dropped.load(Ordering::SeqCst));
                                }
                                std::hint::spin_loop();
                                probe.in_use.fetch_sub(1, Ordering::SeqCst);
                                hits += 1;
                            }
                            Err(e) => {
                                assert!(matches!(e, HandleError::Invalid | HandleError::Null));
                                refused += 1;
                            }
                        }
                    }
                    (hits, refused)
                })
            })
            .collect();
        let mut dropped_flags = Vec::new();
        for _ in 0..ROUNDS {
            let dropped = Arc::new(AtomicBool::new(false));
            let h = PROBES
                .insert(Arc::new(Probe {
                    in_use: AtomicUsize::new(0),
                    dropped: dropped.clone(),
                }))
                .expect("room");
            current.store(h, Ordering::Release);
            std::thread::sleep(Duration::from_micros(200));
            let object = PROBES.remove(h).expect("live");
            // The free returned: no call uses it, and later calls fail.
            assert_eq!(object.in_use.load(Ordering::SeqCst), 0);
            assert_eq!(PROBES.get(h).err(), Some(HandleError::Invalid));
            drop(object);
            assert!(dropped.load(Ordering::SeqCst));
            dropped_flags.push(dropped);
        }
        stop.store(true, Ordering::Relaxed);
        let (mut hits, mut refused) = (0, 0);
        for c in callers {
            let (h, r) = c.join().expect("no caller panicked");
            hits += h;
            refused += r;
        }
        assert!(hits > 0 && refused > 0, "{hits} hits, {refused} refused");
        assert_eq!(PROBES.live(), 0);
    }

    #[test]
    fn concurrent_frees_of_one_handle_free_it_once() {
        for _ in 0..50 {
            let h = REG.insert(Arc::new(9)).expect("room");
            let freed: Vec<_> = (0..4)
                .map(|_| std::thread::spawn(move || REG.remove(h).is_ok()))
                .collect();
            let wins = freed
                .into_iter()
                .map(|f| f.join().expect("no panic"))
                .filter(|won| *won)
                .count();
            assert_eq!(wins, 1);
        }
    }
}
