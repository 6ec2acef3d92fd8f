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
//! A call pins its slot (a read lock) while it uses the object, and `remove`
//! takes the slot's write lock, so it waits for calls in flight to leave:
//! even a free racing a call on another thread is safe. The call finishes
//! on a live object and later calls get `InvalidHandle`.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard};

use crate::error::{Error, ErrorKind, Result};

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

/// A live object and the generation of the handle that names it.
type Live<T> = Option<(u64, Arc<T>)>;

/// A chunk of slots, made when first used.
type Chunk<T> = OnceLock<Box<[RwLock<Live<T>>]>>;

/// One registry per handle type, in a `static`.
pub struct Registry<T> {
    tag: usize,
    chunks: [Chunk<T>; CHUNKS],
    /// Slot allocation and release (cold paths only).
    alloc: Mutex<Alloc>,
    /// Live handles (a host's leak check).
    live: AtomicUsize,
}

struct Alloc {
    free: Vec<usize>,
    next: usize,
}

/// A pinned use of a live object: it is not dropped while this lives.
pub struct Pinned<'a, T>(RwLockReadGuard<'a, Live<T>>);

impl<T> std::ops::Deref for Pinned<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &*self.0 {
            Some((_, object)) => object,
            None => unreachable!("a pin is made only on a live slot"),
        }
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
        }
    }

    /// How many handles are live now.
    pub fn live(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    fn slot(&self, index: usize) -> Option<&RwLock<Live<T>>> {
        let chunk = self.chunks.get(index / CHUNK)?.get()?;
        Some(&chunk[index % CHUNK])
    }

    /// Registers `object` and returns its handle value.
    pub fn insert(&self, object: Arc<T>) -> Result<usize, HandleError> {
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
        let chunk = self.chunks[index / CHUNK]
            .get_or_init(|| (0..CHUNK).map(|_| RwLock::new(None)).collect());
        *chunk[index % CHUNK]
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some((generation, object));
        self.live.fetch_add(1, Ordering::Relaxed);
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
        Ok((index, (handle >> GENERATION_SHIFT) as u64))
    }

    /// Pins the live object behind `handle` for the length of a call.
    #[inline]
    pub fn get(&self, handle: usize) -> Result<Pinned<'_, T>, HandleError> {
        let (index, generation) = self.decode(handle)?;
        let slot = self.slot(index).ok_or(HandleError::Invalid)?;
        let live = slot.read().unwrap_or_else(|p| p.into_inner());
        match &*live {
            Some((g, _)) if *g == generation => Ok(Pinned(live)),
            _ => Err(HandleError::Invalid),
        }
    }

    /// Unregisters `handle` and returns the registry's reference, after
    /// every call using it has left. Later uses of `handle` fail.
    pub fn remove(&self, handle: usize) -> Result<Arc<T>, HandleError> {
        let (index, generation) = self.decode(handle)?;
        let slot = self.slot(index).ok_or(HandleError::Invalid)?;
        let mut live = slot.write().unwrap_or_else(|p| p.into_inner());
        match live.take() {
            Some((g, object)) if g == generation => {
                drop(live);
                let mut alloc = self.alloc.lock().unwrap_or_else(|p| p.into_inner());
                alloc.free.push(index);
                self.live.fetch_sub(1, Ordering::Relaxed);
                Ok(object)
            }
            other => {
                *live = other;
                Err(HandleError::Invalid)
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
        assert_eq!(REG.remove(h).err(), Some(HandleError::Invalid));
        assert_eq!(*REG.get(h2).expect("still live"), 8);
        drop(REG.remove(h2));
    }

    #[test]
    fn a_free_waits_for_the_calls_in_flight() {
        let h = REG.insert(Arc::new(1)).expect("room");
        let pin = REG.get(h).expect("live");
        let freeing = std::thread::spawn(move || REG.remove(h).map(|o| *o));
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!freeing.is_finished(), "the free waits for the pin");
        assert_eq!(*pin, 1);
        drop(pin);
        assert_eq!(freeing.join().expect("no panic"), Ok(1));
    }
}
