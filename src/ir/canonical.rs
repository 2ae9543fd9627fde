//! The canonical identity of a function: what the tuning records are keyed by.
//!
//! Two functions that compute the same thing the same way should share a key whatever their
//! SSA value names, their formatting, the order their attributes were written in, their
//! source locations, or their symbol name. MLIR already canonicalizes all of these when it
//! prints: values are numbered afresh (source names are not kept), attribute dictionaries
//! are sorted, and locations are printed only on request. So the key is a SHA-256 of the
//! function printed in generic form without debug information, under a fixed symbol name.

use super::mlir::Op;
use sha2::{Digest, Sha256};

/// The name every function is printed under for hashing.
const CANONICAL_NAME: &str = "__autosched_canonical";

/// The hex SHA-256 of `func`'s canonical text (64 characters). `func` is not changed: a
/// detached clone is renamed, printed and destroyed.
pub fn function_hash(func: Op) -> String {
    hex(&Sha256::digest(canonical_text(func).as_bytes()))
}

/// `func` printed as it is hashed.
pub fn canonical_text(func: Op) -> String {
    let copy = func.detached_clone();
    copy.set_symbol_name(CANONICAL_NAME);
    // Loop names a Transform-dialect script put on the loops are not part of the function.
    copy.remove_attr_everywhere("autosched.loop");
    let text = copy.to_generic_text();
    // SAFETY: the clone has no parent and no other view of it survives this function.
    unsafe { copy.destroy() };
    text
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
