//! A global allocator that counts freed heap blocks still holding a byte string (a
//! secret that should have been wiped before its memory went back), for the native
//! memory tests (`#[path]`-included by each: it becomes that test binary's allocator).
//! It allocates nothing itself (the needle lives in atomics), so it cannot recurse.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

const MAX_NEEDLE: usize = 64;
static NEEDLE: [AtomicU8; MAX_NEEDLE] = [const { AtomicU8::new(0) }; MAX_NEEDLE];
static NEEDLE_LEN: AtomicUsize = AtomicUsize::new(0);
static FREED_WITH_NEEDLE: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting freed blocks that still hold the needle.
struct Recording;

unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let n = NEEDLE_LEN.load(Ordering::SeqCst);
        if n > 0 && layout.size() >= n {
            // SAFETY: the block is still allocated, `layout.size()` bytes long.
            let block = std::slice::from_raw_parts(ptr, layout.size());
            let holds = block.windows(n).any(|w| {
                w.iter()
                    .zip(&NEEDLE)
                    .all(|(b, c)| *b == c.load(Ordering::Relaxed))
            });
            if holds {
                FREED_WITH_NEEDLE.fetch_add(1, Ordering::SeqCst);
            }
        }
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Recording = Recording;

/// How many blocks freed during `run` still held `needle`.
pub fn freed_copies(needle: &[u8], run: impl FnOnce()) -> usize {
    assert!(!needle.is_empty() && needle.len() <= MAX_NEEDLE);
    for (slot, b) in NEEDLE.iter().zip(needle) {
        slot.store(*b, Ordering::Relaxed);
    }
    FREED_WITH_NEEDLE.store(0, Ordering::SeqCst);
    NEEDLE_LEN.store(needle.len(), Ordering::SeqCst);
    run();
    NEEDLE_LEN.store(0, Ordering::SeqCst);
    FREED_WITH_NEEDLE.load(Ordering::SeqCst)
}
