//! Provides libMLIR-C.so, the MLIR C API as one shared library over libMLIR.so.
//!
//! Debian ships the C API only as static archives; linking them statically into every
//! binary would put a second copy of MLIR's registrations next to libMLIR.so. CMake builds
//! the library for the plugin and points us at it with AUTOSCHED_MLIR_C_DIR; a plain
//! `cargo build`/`cargo test` builds its own copy in OUT_DIR the same way.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=AUTOSCHED_MLIR_C_DIR");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let prefix = PathBuf::from(env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into()));
    let llvm_lib = prefix.join("lib");

    let dir = match env::var("AUTOSCHED_MLIR_C_DIR") {
        Ok(d) if Path::new(&d).join("libMLIR-C.so").is_file() => PathBuf::from(d),
        _ => {
            let dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("mlir-c");
            build_mlir_c(&llvm_lib, &dir);
            dir
        }
    };
    compile_transforms(&prefix);
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}:{}", dir.display(), llvm_lib.display());
}

fn build_mlir_c(llvm_lib: &Path, dir: &Path) {
    let out = dir.join("libMLIR-C.so");
    if out.is_file() {
        return;
    }
    std::fs::create_dir_all(dir).expect("create OUT_DIR/mlir-c");
    let mut archives: Vec<PathBuf> = std::fs::read_dir(llvm_lib)
        .unwrap_or_else(|e| panic!("cannot list {}: {e} (is libmlir-22-dev installed?)", llvm_lib.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("libMLIRCAPI") && name.ends_with(".a")
        })
        .collect();
    archives.sort();
    assert!(!archives.is_empty(), "no libMLIRCAPI*.a in {} (install libmlir-22-dev)", llvm_lib.display());
    let tmp = dir.join("libMLIR-C.so.tmp");
    let status = Command::new(env::var("CXX").unwrap_or_else(|_| "c++".into()))
        .arg("-shared")
        .arg("-o")
        .arg(&tmp)
        .arg("-Wl,--whole-archive")
        .args(&archives)
        .arg("-Wl,--no-whole-archive")
        .arg(format!("-L{}", llvm_lib.display()))
        .args(["-lMLIR", "-lLLVM", "-Wl,-z,defs"])
        .arg(format!("-Wl,-rpath,{}", llvm_lib.display()))
        .status()
        .expect("run the C++ compiler to link libMLIR-C.so");
    assert!(status.success(), "linking libMLIR-C.so failed");
    std::fs::rename(&tmp, &out).expect("move libMLIR-C.so into place");
}

/// The C++ transformation layer is part of the crate: the plugin and the `autosched`
/// binary both get it from here, so there is one build of it. It is passes/Transforms.cpp
/// (what the kinds share, and the transaction entries) and one passes/kinds/<Kind>.cpp per
/// transformation kind, whose C entry passes/kinds/<Kind>.h declares.
fn compile_transforms(prefix: &Path) {
    let kinds_cpp = kind_files("cpp");
    let kinds_h = kind_files("h");
    for f in ["passes/Transforms.cpp", "passes/Transforms.h", "passes/TransformsFFI.h", "passes/kinds"] {
        println!("cargo:rerun-if-changed={f}");
    }
    for f in kinds_cpp.iter().chain(&kinds_h) {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    cc::Build::new()
        .cpp(true)
        .file("passes/Transforms.cpp")
        .files(&kinds_cpp)
        .include(prefix.join("include"))
        .include("passes")
        .std("c++17")
        .flag("-fno-exceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-comment")
        .define("_GNU_SOURCE", None)
        .define("_GLIBCXX_USE_CXX11_ABI", "1")
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .opt_level(2)
        .debug(false)
        .compile("autosched_transforms");
    generate_bindings(prefix, &kinds_h);
}

/// The files of passes/kinds/ whose name ends in `.{ext}`, sorted.
fn kind_files(ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("passes/kinds")
        .unwrap_or_else(|e| panic!("cannot list passes/kinds: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().and_then(|x| x.to_str()) == Some(ext))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *.{ext} in passes/kinds");
    files
}

/// The Rust side of the C ABI (TransformsFFI.h and every kind's header), generated so that
/// it cannot drift from the C++ side: `$OUT_DIR/transforms_ffi.rs`, which src/transform/ffi.rs
/// include!s with `mlir_sys::MlirOperation` and `std::ffi::{c_char, c_void}` in scope.
fn generate_bindings(prefix: &Path, kinds_h: &[PathBuf]) {
    println!("cargo:rerun-if-env-changed=LIBCLANG_PATH");
    if env::var_os("LIBCLANG_PATH").is_none() {
        // Debian's libclang-22.so.1 (package libclang1-22, which clang-22 depends on).
        env::set_var("LIBCLANG_PATH", prefix.join("lib"));
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut wrapper = String::from("#include \"TransformsFFI.h\"\n");
    for h in kinds_h {
        wrapper += &format!("#include \"{}\"\n", root.join(h).display());
    }
    let wrapper_path = out.join("transforms_ffi_wrapper.h");
    std::fs::write(&wrapper_path, wrapper).expect("write the bindings' wrapper header");
    bindgen::Builder::default()
        .header(wrapper_path.to_string_lossy())
        .clang_arg(format!("-I{}", prefix.join("include").display()))
        .clang_arg(format!("-I{}", root.join("passes").display()))
        .allowlist_function("autosched_tx_.*")
        .allowlist_var("AUTOSCHED_TX_.*")
        .allowlist_type("AutoschedTxReportFn")
        // src/transform/ffi.rs has mlir_sys's MlirOperation in scope.
        .blocklist_type("MlirOperation")
        .prepend_enum_name(false)
        .ctypes_prefix("::std::ffi")
        .layout_tests(false)
        .generate()
        .expect("generate the bindings of passes/TransformsFFI.h and passes/kinds/*.h")
        .write_to_file(out.join("transforms_ffi.rs"))
        .expect("write $OUT_DIR/transforms_ffi.rs");
}
