//! Zeroed arrays straight from the kernel, in huge pages where allowed.
//!
//! The route table's slot arrays are large (two cache lines per slot, up to
//! twice the cache's capacity in slots) and read at scattered places. From
//! the allocator they would be written whole when zeroed (every page made
//! resident at once) and mapped in 4 KiB pages, so a scattered lookup pays a
//! TLB miss (a page walk) on top of its cache miss, which made scattered
//! lookups markedly slower than in 2 MiB pages (measured:
//! docs/performance.md, "The targets not met").
//! So on Unix an array is its own anonymous mapping: zero pages until an
//! entry lands there, aligned to 2 MiB and advised `MADV_HUGEPAGE` on Linux
//! (honoured when transparent huge pages are `always` or `madvise`; only
//! advice, so a system without them just keeps 4 KiB pages). Elsewhere, or
//! if the mapping fails, the array comes from the allocator.
//!
//! This is the core's only unsafe code: a mapping made, viewed as a slice,
//! and unmapped on drop. It holds only types for which all-zero bytes are a
//! valid value ([`ZeroValid`]).
#![allow(unsafe_code)]

use std::ops::Deref;
use std::sync::atomic::AtomicU64;

use super::slot::Slot;

/// Types whose all-zero bit pattern is a valid value, so a zero-filled
/// mapping is an initialised array of them, and whose every byte is an
/// atomic, so [`Zeroed::discard`] zeroing them behind shared references is
/// like another thread storing zeros.
///
/// # Safety
/// Implement only for types made of atomic integers (no plain integers, no
/// references, no `NonZero`).
pub(crate) unsafe trait ZeroValid: Sync + Send + Sized {
    /// The all-zero value, built safely (for the allocator fallback).
    fn zero() -> Self;
}

// SAFETY: an AtomicU64 has the layout of a u64, and zero is a valid u64.
unsafe impl ZeroValid for AtomicU64 {
    fn zero() -> Self {
        AtomicU64::new(0)
    }
}
// SAFETY: a Slot is sixteen AtomicU64s (repr(align(128)) adds no fields).
unsafe impl ZeroValid for Slot {
    fn zero() -> Self {
        Slot::empty()
    }
}

const HUGE_PAGE: usize = 2 << 20;

/// A fixed array of `len` zeroed `T`s.
pub(crate) struct Zeroed<T: ZeroValid> {
    memory: Memory<T>,
}

enum Memory<T> {
    #[cfg(unix)]
    Mapped {
        /// The mapping (as mmap returned it) and its length.
        base: *mut libc::c_void,
        size: usize,
        /// The array, inside the mapping, 2 MiB-aligned.
        start: *const T,
        len: usize,
    },
    Allocated(Box<[T]>),
}

// SAFETY: the mapping is owned by this value alone (like a Box), and T is
// Send + Sync (ZeroValid), so moving or sharing it across threads is as safe
// as for a Box<[T]>.
unsafe impl<T: ZeroValid> Send for Zeroed<T> {}
// SAFETY: as above; shared access hands out only &T.
unsafe impl<T: ZeroValid> Sync for Zeroed<T> {}

impl<T: ZeroValid> Zeroed<T> {
    /// `len` zeroed values.
    pub(crate) fn new(len: usize) -> Self {
        #[cfg(unix)]
        if let Some(memory) = Self::map(len) {
            return Zeroed { memory };
        }
        Zeroed {
            memory: Memory::Allocated(Self::allocate(len)),
        }
    }

    /// The fallback: written whole (every page made resident).
    fn allocate(len: usize) -> Box<[T]> {
        (0..len).map(|_| T::zero()).collect()
    }

    #[cfg(unix)]
    fn map(len: usize) -> Option<Memory<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        if bytes == 0 || std::mem::align_of::<T>() > HUGE_PAGE {
            return None;
        }
        // Room to align the array to a huge page inside the mapping.
        let size = bytes.checked_add(HUGE_PAGE)?;
        // SAFETY: an anonymous private mapping of `size` bytes at an address
        // the kernel picks; no existing memory is touched.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let offset = (base as usize).next_multiple_of(HUGE_PAGE) - base as usize;
        // SAFETY: offset < HUGE_PAGE, so start..start+bytes lies inside the
        // mapping of `size` = bytes + HUGE_PAGE bytes.
        let start = unsafe { base.cast::<u8>().add(offset) }.cast::<T>();
        #[cfg(target_os = "linux")]
        // SAFETY: advice on a range of our own mapping; it changes no
        // contents. Its result is ignored: without huge pages the array works
        // the same, only slower.
        unsafe {
            libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
        }
        Some(Memory::Mapped {
            base,
            size,
            start,
            len,
        })
    }
}

impl<T: ZeroValid> Zeroed<T> {
    /// Gives the memory back to the system; the array reads as zeros again
    /// (the kernel maps fresh zero pages on the next touch). For an array
    /// nothing uses any more except, possibly, a late reader: all access to
    /// it is through atomics, which then read zeros, an empty value. (The
    /// caller must not reuse the array where a value coming back to zero
    /// could fool a reader: see the route table's sequences.)
    pub(crate) fn discard(&self) {
        #[cfg(target_os = "linux")]
        if let Memory::Mapped { start, len, .. } = self.memory {
            let bytes = len * std::mem::size_of::<T>();
            // SAFETY: a range of our own private anonymous mapping; its
            // contents become zero, a valid T (ZeroValid), and every access
            // to them is atomic (T's only mutation is through atomics).
            unsafe {
                libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_DONTNEED);
            }
        }
    }
}

impl<T: ZeroValid> Deref for Zeroed<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.memory {
            #[cfg(unix)]
            // SAFETY: `start` is aligned for T (2 MiB-aligned, align_of::<T>()
            // ≤ 2 MiB), points to `len` Ts inside a live mapping read-write and
            // zero-filled by the kernel (a valid value, ZeroValid); the
            // mapping lives as long as `self`, and T's mutation is only through
            // its atomics (&T only).
            Memory::Mapped { start, len, .. } => unsafe {
                std::slice::from_raw_parts(*start, *len)
            },
            Memory::Allocated(boxed) => boxed,
        }
    }
}

impl<T: ZeroValid> Drop for Zeroed<T> {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Memory::Mapped { base, size, .. } = self.memory {
            // SAFETY: the mapping made in `map`, unmapped once; no reference
            // into it outlives `self` (Deref borrows `self`).
            unsafe {
                libc::munmap(base, size);
            }
        }
    }
}

/// Asks the CPU to start bringing the cache line of `value` in (a hint: no
/// memory is read, nothing faults, the line may be ignored).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is in SSE, part of the x86-64 baseline; it reads
    // nothing and never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn arrays_start_zeroed_and_keep_what_is_written() {
        for len in [1, 7, 100_000] {
            let array = Zeroed::<AtomicU64>::new(len);
            assert_eq!(array.len(), len);
            assert!(array.iter().all(|w| w.load(Ordering::Relaxed) == 0));
            array[len - 1].store(7, Ordering::Relaxed);
            assert_eq!(array[len - 1].load(Ordering::Relaxed), 7);
            array.discard();
            #[cfg(target_os = "linux")]
            assert_eq!(array[len - 1].load(Ordering::Relaxed), 0, "given back");
        }
        let allocated = Zeroed::<AtomicU64> {
            memory: Memory::Allocated(Zeroed::<AtomicU64>::allocate(3)),
        };
        assert!(allocated.iter().all(|w| w.load(Ordering::Relaxed) == 0));
    }

    #[test]
    fn large_arrays_sit_on_huge_page_boundaries() {
        let array = Zeroed::<Slot>::new(1 << 16);
        if let Memory::Mapped { start, .. } = array.memory {
            assert_eq!(start as usize % HUGE_PAGE, 0);
        }
    }
}
