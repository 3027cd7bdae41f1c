//! Memory taken from the operating system's allocator rather than the global one, for the
//! exploration's largest buffers.
//!
//! The program's global allocator (mimalloc, see `main.rs`) backs its memory with 2 MiB huge
//! pages, and the first write to each costs zeroing all 2 MiB (0.2 to 2 ms on the VMs we
//! measure). A state arena block has room for a million states, but a small state space
//! fills a few kilobytes of it: taken from the system allocator, a block of that size is a
//! fresh memory mapping with small pages, so a small run pays for the pages it writes;
//! `hugepages::advise` still gives huge pages to the part past the first few megabytes.
//!
//! The graph's arrays (successor lists, their offsets, BFS parents) grow by doubling, and
//! under the global allocator each doubling of a small array lands on huge pages not
//! touched before. `SystemVec` keeps an array in the system allocator's memory, with small
//! pages, while it is small (a small run then pays for the pages it writes), and moves it to
//! the global allocator's huge pages once it is large. (Growing large arrays in the system
//! allocator, by remapping, splits their huge pages: leader n=8 then took 6,400 more page
//! faults and 6 % longer.)

use std::alloc::{GlobalAlloc, Layout, System, handle_alloc_error};
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// A fixed-capacity byte buffer: an arena block.
pub(crate) struct SystemBlock {
    ptr: NonNull<u8>,
    len: usize,
    cap: usize,
}

// SAFETY: a `SystemBlock` owns its bytes exclusively, like a `Vec<u8>`.
unsafe impl Send for SystemBlock {}
// SAFETY: shared references only read the bytes, like `&Vec<u8>`.
unsafe impl Sync for SystemBlock {}

impl SystemBlock {
    /// An empty block with room for `cap` bytes (`cap > 0`); none of them is touched.
    pub(crate) fn with_capacity(cap: usize) -> SystemBlock {
        let layout = Self::layout(cap);
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { System.alloc(layout) };
        let Some(ptr) = NonNull::new(ptr) else { handle_alloc_error(layout) };
        SystemBlock { ptr, len: 0, cap }
    }

    fn layout(cap: usize) -> Layout {
        Layout::from_size_align(cap.max(1), 64).expect("arena block size")
    }

    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    /// Appends `s`, which must fit.
    pub(crate) fn extend_from_slice(&mut self, s: &[u8]) {
        assert!(s.len() <= self.cap - self.len, "arena block overflow");
        // SAFETY: the destination lies within the capacity, past the written bytes.
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), self.ptr.as_ptr().add(self.len), s.len()) };
        self.len += s.len();
    }

    /// The unwritten part of the capacity.
    pub(crate) fn spare_capacity_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        // SAFETY: `len..cap` lies within the allocation; `MaybeUninit` needs no initialisation.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr.as_ptr().add(self.len).cast::<MaybeUninit<u8>>(),
                self.cap - self.len,
            )
        }
    }

    /// Marks `n` more bytes as written.
    ///
    /// # Safety
    /// The next `n` bytes of the spare capacity were written, and `len + n <= cap`.
    pub(crate) unsafe fn grow_len(&mut self, n: usize) {
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

/// A growable array of `Copy` values, in the system allocator's memory below `LARGE` bytes
/// of capacity and in the global allocator's from there (see the module comment): the
/// subset of `Vec` the graph needs.
pub struct SystemVec<T: Copy> {
    ptr: NonNull<T>,
    len: usize,
    cap: usize,
}

/// Capacity in bytes from which a `SystemVec` lives in the global allocator's memory.
const LARGE: usize = 256 << 10;

// SAFETY: a `SystemVec` owns its values exclusively, like a `Vec<T>`.
unsafe impl<T: Copy + Send> Send for SystemVec<T> {}
// SAFETY: shared references only read the values, like `&Vec<T>`.
unsafe impl<T: Copy + Sync> Sync for SystemVec<T> {}

impl<T: Copy> SystemVec<T> {
    pub(crate) fn new() -> SystemVec<T> {
        assert!(std::mem::size_of::<T>() > 0, "no zero-sized values");
        SystemVec { ptr: NonNull::dangling(), len: 0, cap: 0 }
    }

    fn layout(cap: usize) -> Layout {
        Layout::array::<T>(cap).expect("buffer size")
    }

    /// Whether a capacity of `cap` values is allocated by the system allocator.
    fn on_system(cap: usize) -> bool {
        cap * std::mem::size_of::<T>() < LARGE
    }

    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    /// Room for at least `additional` more values (at least doubling the capacity).
    pub(crate) fn reserve(&mut self, additional: usize) {
        let need = self.len.checked_add(additional).expect("buffer size");
        if need <= self.cap {
            return;
        }
        let cap = need.max(self.cap * 2).max(64);
        let layout = Self::layout(cap);
        let old = self.ptr.as_ptr().cast::<u8>();
        // SAFETY: the layouts have non-zero sizes; the current buffer (if any) was allocated
        // with `Self::layout(self.cap)` by the allocator `on_system(self.cap)` names, and a
        // buffer moving from one allocator to the other has its `len` values copied first.
        let p = unsafe {
            match (self.cap == 0, Self::on_system(self.cap), Self::on_system(cap)) {
                (true, _, true) => System.alloc(layout),
                (true, _, false) => std::alloc::alloc(layout),
                (false, true, true) => System.realloc(old, Self::layout(self.cap), layout.size()),
                (false, false, _) => std::alloc::realloc(old, Self::layout(self.cap), layout.size()),
                (false, true, false) => {
                    let p = std::alloc::alloc(layout);
                    if !p.is_null() {
                        std::ptr::copy_nonoverlapping(old, p, self.len * std::mem::size_of::<T>());
                        System.dealloc(old, Self::layout(self.cap));
                    }
                    p
                }
            }
        };
        let Some(p) = NonNull::new(p.cast::<T>()) else { handle_alloc_error(layout) };
        self.ptr = p;
        self.cap = cap;
    }

    pub(crate) fn push(&mut self, x: T) {
        if self.len == self.cap {
            self.reserve(1);
        }
        // SAFETY: `len < cap` after the reservation.
        unsafe { self.ptr.as_ptr().add(self.len).write(x) };
        self.len += 1;
    }

    pub(crate) fn extend_from_slice(&mut self, xs: &[T]) {
        self.reserve(xs.len());
        // SAFETY: there is room for `xs` past the written values.
        unsafe { std::ptr::copy_nonoverlapping(xs.as_ptr(), self.ptr.as_ptr().add(self.len), xs.len()) };
        self.len += xs.len();
    }

    pub(crate) fn extend(&mut self, xs: impl IntoIterator<Item = T>) {
        let xs = xs.into_iter();
        self.reserve(xs.size_hint().0);
        for x in xs {
            self.push(x);
        }
    }

    /// Sets the length to `n`, filling new places with `x`.
    pub(crate) fn resize(&mut self, n: usize, x: T) {
        if n <= self.len {
            self.len = n;
        } else {
            self.reserve(n - self.len);
            while self.len < n {
                // SAFETY: `len < n <= cap`.
                unsafe { self.ptr.as_ptr().add(self.len).write(x) };
                self.len += 1;
            }
        }
    }
}

impl<T: Copy> Default for SystemVec<T> {
    fn default() -> SystemVec<T> {
        SystemVec::new()
    }
}

impl<T: Copy> From<Vec<T>> for SystemVec<T> {
    fn from(v: Vec<T>) -> SystemVec<T> {
        let mut s = SystemVec::new();
        s.extend_from_slice(&v);
        s
    }
}

impl<T: Copy> std::ops::Deref for SystemVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` values were written (a dangling pointer is fine for 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> std::ops::DerefMut for SystemVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `self` is borrowed exclusively.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<'a, T: Copy> IntoIterator for &'a SystemVec<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + PartialEq> PartialEq for SystemVec<T> {
    fn eq(&self, other: &SystemVec<T>) -> bool {
        self[..] == other[..]
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for SystemVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy> Drop for SystemVec<T> {
    fn drop(&mut self) {
        if self.cap > 0 {
            let layout = Self::layout(self.cap);
            // SAFETY: allocated with this layout by the allocator `on_system` names.
            unsafe {
                if Self::on_system(self.cap) {
                    System.dealloc(self.ptr.as_ptr().cast(), layout);
                } else {
                    std::alloc::dealloc(self.ptr.as_ptr().cast(), layout);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SystemBlock, SystemVec};

    #[test]
    fn a_system_vec_keeps_its_values_as_it_grows() {
        // Grows through many reallocations, from the system allocator's memory to the
        // global allocator's (past `LARGE`), compared with a `Vec`.
        let mut s: SystemVec<u64> = SystemVec::new();
        let mut v: Vec<u64> = Vec::new();
        assert!(s.is_empty());
        for i in 0..1_500_000u64 {
            let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            if i % 3 == 0 {
                s.push(x);
                v.push(x);
            } else {
                s.extend_from_slice(&[x, x ^ 1]);
                v.extend_from_slice(&[x, x ^ 1]);
            }
        }
        assert_eq!(&s[..], &v[..]);
        assert!(s.capacity() >= s.len());
        s.resize(10, 0);
        s.resize(12, 7);
        assert_eq!(&s[..], &[&v[..10], &[7, 7]].concat()[..]);
        s.extend((0..3).map(|i| i + 100));
        assert_eq!(s.iter().rev().take(3).copied().collect::<Vec<_>>(), vec![102, 101, 100]);
        let from: SystemVec<u32> = vec![3, 1, 2].into();
        assert_eq!(&from[..], &[3, 1, 2]);
        assert_eq!((&from).into_iter().sum::<u32>(), 6);
    }

    #[test]
    fn appends_and_commits_within_its_capacity() {
        let mut b = SystemBlock::with_capacity(10);
        b.extend_from_slice(&[1, 2, 3]);
        assert_eq!((b.len(), b.capacity()), (3, 10));
        let spare = b.spare_capacity_mut();
        assert_eq!(spare.len(), 7);
        spare[0].write(4);
        spare[1].write(5);
        // SAFETY: the two spare bytes were just written.
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
