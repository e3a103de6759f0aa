//! The controls: a secret-dependent branch (`branch`) and a secret-indexed table read
//! (`index`), each run under the same valgrind command as ct-check by tests/ct/run.sh,
//! which requires memcheck to fail each of them (exit 9, with the matching report): the
//! check is seen able to fail, every run.

use std::hint::black_box;

use ewk_ct::{public, secret};

fn main() {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).unwrap();
    secret(&key);
    let key = black_box(key);
    match std::env::args().nth(1).as_deref() {
        // Different calls in the two arms: a real jump, not a flag set without one.
        Some("branch") => {
            if key[0] > 3 {
                println!("ct-control: branch taken");
            } else {
                println!("ct-control: branch not taken");
            }
        }
        Some("index") => {
            let table: [u8; 256] = core::array::from_fn(|i| i as u8 ^ 0x5a);
            let entry = black_box(table)[usize::from(key[0])];
            // Declassified, so that printing it reports nothing: only the read may.
            public(&entry);
            println!("ct-control: entry {entry}");
        }
        _ => panic!("usage: ct-control branch|index"),
    }
}
