//! Fixed-capacity byte buffers taken from the operating system's allocator, for the state
//! arena's blocks.
//!
//! The program's global allocator (mimalloc, see `main.rs`) backs its memory with 2 MiB huge
//! pages, and the first write to each costs zeroing all 2 MiB (0.2 to 2 ms on the VMs we
//! measure). A block has room for a million states, but a small state space fills a few
//! kilobytes of it. Taken from the system allocator, a block of that size is a fresh memory
//! mapping with small pages, so a small run pays for the pages it writes; `hugepages::advise`
//! still gives huge pages to the part past the first few megabytes.

use std::alloc::{GlobalAlloc, Layout, System, handle_alloc_error};
use std::mem::MaybeUninit;
use std::ptr::NonNull;

pub struct SystemBlock {
    ptr: NonNull<u8>,
    len: usize,
    cap: usize,
}

// SAFETY: a `SystemBlock` owns its bytes exclusively, like a `Vec<u8>`.
unsafe impl Send for SystemBlock {}
unsafe impl Sync for SystemBlock {}

impl SystemBlock {
    /// An empty block with room for `cap` bytes (`cap > 0`); none of them is touched.
    pub fn with_capacity(cap: usize) -> SystemBlock {
        let layout = Self::layout(cap);
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { System.alloc(layout) };
        let Some(ptr) = NonNull::new(ptr) else { handle_alloc_error(layout) };
        SystemBlock { ptr, len: 0, cap }
    }

    fn layout(cap: usize) -> Layout {
        Layout::from_size_align(cap.max(1), 64).expect("arena block size")
    }

    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Appends `s`, which must fit.
    pub fn extend_from_slice(&mut self, s: &[u8]) {
        assert!(s.len() <= self.cap - self.len, "arena block overflow");
        // SAFETY: the destination lies within the capacity, past the written bytes.
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), self.ptr.as_ptr().add(self.len), s.len()) };
        self.len += s.len();
    }

    /// The unwritten part of the capacity.
    pub fn spare_capacity_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        // SAFETY: `len..cap` lies within the allocation; `MaybeUninit` needs no initialisation.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr.as_ptr().add(self.len).cast::<MaybeUninit<u8>>(),
                self.cap - self.len,
            )
        }
    }

    /// Marks `n` more bytes as written. Safety: the next `n` bytes of the spare capacity were
    /// written, and `len + n <= cap`.
    pub unsafe fn grow_len(&mut self, n: usize) {
        debug_assert!(n <= self.cap - self.len);
        self.len += n;
    }
}

impl std::ops::Deref for SystemBlock {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: the first `len` bytes were written.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for SystemBlock {
    fn drop(&mut self) {
        // SAFETY: allocated by `System` with this layout.
        unsafe { System.dealloc(self.ptr.as_ptr(), Self::layout(self.cap)) };
    }
}

#[cfg(test)]
mod tests {
    use super::SystemBlock;

    #[test]
    fn appends_and_commits_within_its_capacity() {
        let mut b = SystemBlock::with_capacity(10);
        b.extend_from_slice(&[1, 2, 3]);
        assert_eq!((b.len(), b.capacity()), (3, 10));
        let spare = b.spare_capacity_mut();
        assert_eq!(spare.len(), 7);
        spare[0].write(4);
        spare[1].write(5);
        unsafe { b.grow_len(2) };
        assert_eq!(&b[..], &[1, 2, 3, 4, 5]);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn refuses_to_overflow() {
        let mut b = SystemBlock::with_capacity(2);
        b.extend_from_slice(&[1, 2, 3]);
    }
}
