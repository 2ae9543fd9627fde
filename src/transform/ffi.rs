//! The C ABI of the transformation layer (passes/TransformsFFI.h and the kinds' headers in
//! passes/kinds/), as bindgen generates it at build time: the Rust side is never written by
//! hand, so a changed signature is a compile error here, not a crash there. [`Call`] is
//! what a kind's `apply` passes to its entry: the clone to transform and where the C++
//! side writes the reason of a refusal.

#![allow(non_upper_case_globals, non_camel_case_types, non_snake_case, dead_code)]

use mlir_sys::MlirOperation;
use std::ffi::{c_char, c_void, CString};

include!(concat!(env!("OUT_DIR"), "/transforms_ffi.rs"));

/// One call into the C++ layer on a tagged clone.
pub struct Call {
    pub func: MlirOperation,
    why: String,
}

extern "C" fn collect_report(ctx: *mut c_void, msg: *const c_char, len: usize) {
    // SAFETY: ctx is the &mut String of the `Call` that handed it out, alive for the call;
    // msg points to len bytes.
    let out = unsafe { &mut *(ctx as *mut String) };
    let bytes = unsafe { std::slice::from_raw_parts(msg as *const u8, len) };
    out.push_str(&String::from_utf8_lossy(bytes));
}

impl Call {
    pub fn new(func: MlirOperation) -> Call {
        Call { func, why: String::new() }
    }

    /// The report callback and its context, to pass to an entry of the C++ layer.
    pub fn report(&mut self) -> (AutoschedTxReportFn, *mut c_void) {
        (Some(collect_report), &mut self.why as *mut String as *mut c_void)
    }

    /// Adds to the reason, as the C++ side would (a verdict decided on the Rust side).
    pub fn say(&mut self, why: &str) {
        self.why.push_str(why);
    }

    /// What the C++ side reported.
    pub fn into_reason(self) -> String {
        self.why
    }
}

/// A C string of a loop name (ASCII without NULs, as `LoopName` checks).
pub fn cstring(s: &str) -> CString {
    CString::new(s).unwrap_or_default()
}
