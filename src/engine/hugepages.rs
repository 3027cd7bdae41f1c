//! Transparent huge pages for the state store's large tables.
//!
//! The index and the arena are read at random, and beyond a few megabytes nearly every
//! lookup misses the TLB; with 4 KiB pages each miss is a page walk that even a prefetch has
//! to wait for. Where the kernel supports it (Linux with transparent huge pages in `madvise`
//! or `always` mode), asking for 2 MiB pages before the memory is first touched makes the
//! same tables need 512 times fewer TLB entries. The advice is only a hint: when it is
//! refused, nothing changes but the speed.

/// Allocations below this size are not worth a system call.
const MIN_BYTES: usize = 4 << 20;

/// Asks for huge pages for the whole 4 KiB pages of `[ptr, ptr + len)`, before first use.
pub(crate) fn advise(ptr: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        if len < MIN_BYTES {
            return;
        }
        let start = (ptr as usize).next_multiple_of(4096);
        let end = (ptr as usize + len) & !4095;
        if end > start {
            // SAFETY: the range lies within an allocation owned by the caller; MADV_HUGEPAGE
            // changes no contents and no permissions, and its failure is harmless.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// Has the kernel back the pages of `[ptr, ptr + len)` now, as the first writes to them
/// would (`MADV_POPULATE_WRITE`, Linux 5.14 and later), without changing what they hold: a
/// thread with nothing else to do can thus take the page faults of memory another thread is
/// about to write. Only a hint: where it is refused, the writes fault as usual.
pub(crate) fn populate(ptr: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        let start = (ptr as usize) & !4095;
        let end = ptr as usize + len;
        if end > start {
            // SAFETY: the range lies within a mapping owned by the caller (rounded down to its
            // page, which is mapped too); populating changes no contents and no permissions,
            // and its failure is harmless.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_POPULATE_WRITE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// A vector of `n` values made by `make`, advised for huge pages before it is filled.
pub(crate) fn vec_of<T>(n: usize, make: impl FnMut() -> T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise(v.as_ptr() as *const u8, n * std::mem::size_of::<T>());
    v.extend(std::iter::repeat_with(make).take(n));
    v
}
