//! Opaque handles that survive misuse: a freed or foreign handle is an error
//! code, never a dereference of freed memory.
//!
//! A handle is not a pointer to Rust memory. Its bits encode a slot index in
//! a registry that is never deallocated, the slot's generation at creation
//! and a type tag:
//!
//! ```text
//! bits 63..24  generation (40 bits, from one process-wide counter, never 0)
//! bits 23..4   slot index (20 bits)
//! bits  3..0   type tag (odd: runtime 0x3, store 0x5, clock 0x7, frame 0x9)
//! ```
//!
//! Freeing a handle sets its slot's generation to 0, so every later use of
//! the old bits fails the generation check (the counter never repeats, so a
//! reused slot never matches an old handle). A pointer to real memory is at
//! least 2-aligned, so its low nibble is never an odd tag: foreign pointers
//! fail the tag check before any lookup. Nothing behind a handle is ever
//! read through the handle value itself.
//!
//! A call pins its slot (an in-flight counter) while it uses the object, and
//! `free` waits for in-flight calls to leave before dropping it, so even a
//! free racing a call on another thread is safe: the call finishes on a live
//! object and later calls get `ZLINK_RESULT_INVALID_HANDLE`.

use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

const CHUNK: usize = 256;
const CHUNKS: usize = 4096;
const INDEX_BITS: u32 = 20;
const GENERATION_SHIFT: u32 = 4 + INDEX_BITS;
const GENERATION_MAX: u64 = (1 << (64 - GENERATION_SHIFT)) - 1;

const _: () = assert!(CHUNK * CHUNKS == 1 << INDEX_BITS);
const _: () = assert!(usize::BITS == 64, "handles encode 64-bit values");

/// Generations for every slot of every registry: unique for the process.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

/// Why a handle could not be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HandleError {
    /// The handle is null.
    Null,
    /// Freed, of another type, or never made by this library.
    Invalid,
    /// Every slot is in use.
    Exhausted,
}

struct Slot<T> {
    /// The live handle's generation, or 0 while the slot is free.
    generation: AtomicU64,
    /// Calls using the object now.
    in_flight: AtomicU32,
    /// `Arc::into_raw` of the object, or null.
    object: AtomicPtr<T>,
}

impl<T> Slot<T> {
    fn new() -> Self {
        Slot {
            generation: AtomicU64::new(0),
            in_flight: AtomicU32::new(0),
            object: AtomicPtr::new(std::ptr::null_mut()),
        }
    }
}

/// One registry per handle type, in a `static`.
pub(crate) struct Registry<T> {
    tag: usize,
    chunks: [OnceLock<Box<[Slot<T>]>>; CHUNKS],
    /// Slot allocation and release (cold paths only).
    alloc: Mutex<Alloc>,
}

struct Alloc {
    free: Vec<usize>,
    next: usize,
}

/// A pinned use of a live object; the object is not dropped while it lives.
pub(crate) struct Pinned<'a, T> {
    slot: &'a Slot<T>,
    object: &'a T,
}

impl<T> std::ops::Deref for Pinned<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.object
    }
}

impl<T> Drop for Pinned<'_, T> {
    fn drop(&mut self) {
        self.slot.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<T: Send + Sync> Registry<T> {
    /// An empty registry whose handles carry `tag` (odd, < 16).
    pub(crate) const fn new(tag: usize) -> Self {
        assert!(tag % 2 == 1 && tag < 16);
        Registry {
            tag,
            chunks: [const { OnceLock::new() }; CHUNKS],
            alloc: Mutex::new(Alloc {
                free: Vec::new(),
                next: 0,
            }),
        }
    }

    fn slot(&self, index: usize) -> Option<&Slot<T>> {
        self.chunks
            .get(index / CHUNK)?
            .get()
            .map(|chunk| &chunk[index % CHUNK])
    }

    fn slot_or_grow(&self, index: usize) -> &Slot<T> {
        let chunk =
            self.chunks[index / CHUNK].get_or_init(|| (0..CHUNK).map(|_| Slot::new()).collect());
        &chunk[index % CHUNK]
    }

    /// Registers `object` and returns its handle value.
    pub(crate) fn insert(&self, object: Arc<T>) -> Result<usize, HandleError> {
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
        let slot = self.slot_or_grow(index);
        slot.object
            .store(Arc::into_raw(object).cast_mut(), Ordering::SeqCst);
        slot.generation.store(generation, Ordering::SeqCst);
        Ok(((generation as usize) << GENERATION_SHIFT) | (index << 4) | self.tag)
    }

    fn decode(&self, handle: usize) -> Result<(usize, u64), HandleError> {
        if handle == 0 {
            return Err(HandleError::Null);
        }
        if handle & 0xF != self.tag {
            return Err(HandleError::Invalid);
        }
        let index = (handle >> 4) & ((1 << INDEX_BITS) - 1);
        let generation = (handle >> GENERATION_SHIFT) as u64;
        Ok((index, generation))
    }

    /// Pins the live object behind `handle` for the length of a call.
    #[inline]
    pub(crate) fn get(&self, handle: usize) -> Result<Pinned<'_, T>, HandleError> {
        let (index, generation) = self.decode(handle)?;
        let slot = self.slot(index).ok_or(HandleError::Invalid)?;
        // Announce the use before checking the generation; `remove` changes
        // the generation before waiting for in-flight uses (both SeqCst), so
        // either this call sees the change or `remove` sees this call.
        slot.in_flight.fetch_add(1, Ordering::SeqCst);
        let live = slot.generation.load(Ordering::SeqCst) == generation;
        // Read after the generation: `insert` stores the object before it.
        let object = slot.object.load(Ordering::SeqCst);
        if !live || object.is_null() {
            slot.in_flight.fetch_sub(1, Ordering::SeqCst);
            return Err(HandleError::Invalid);
        }
        // SAFETY: `object` came from `Arc::into_raw` in `insert` for this
        // generation, and `remove` drops it only after this pin is released
        // (the in-flight count is non-zero until `Pinned` drops).
        let object = unsafe { &*object };
        Ok(Pinned { slot, object })
    }

    /// Unregisters `handle` and returns the registry's reference, after
    /// every call using it has left. Later uses of `handle` fail.
    pub(crate) fn remove(&self, handle: usize) -> Result<Arc<T>, HandleError> {
        let (index, generation) = self.decode(handle)?;
        let slot = self.slot(index).ok_or(HandleError::Invalid)?;
        let mut alloc = self.alloc.lock().unwrap_or_else(|p| p.into_inner());
        if slot
            .generation
            .compare_exchange(generation, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return Err(HandleError::Invalid);
        }
        while slot.in_flight.load(Ordering::SeqCst) != 0 {
            std::thread::yield_now();
        }
        let raw = slot.object.swap(std::ptr::null_mut(), Ordering::SeqCst);
        alloc.free.push(index);
        drop(alloc);
        // SAFETY: `raw` is the registry's reference from `Arc::into_raw`,
        // taken out of the slot exactly once (the generation CAS above
        // succeeds for one caller only) and no call is using it any more.
        Ok(unsafe { Arc::from_raw(raw) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(*REG.get(h2).expect("live"), 8);
        drop(REG.remove(h2));
    }
}
