//! Loading MLIR files outside mlir-opt (the command line and the tests), through melior.

use crate::ir::mlir::Op;
use melior::{dialect::DialectRegistry, utility::register_all_dialects, Context};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read '{path}': {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot parse '{path}':\n{diagnostics}")]
    Parse { path: PathBuf, diagnostics: String },
}

/// A parsed module and the context that owns it.
pub struct LoadedModule {
    // Field order matters: the module must be destroyed before its context.
    module: mlir_sys::MlirModule,
    _context: Context,
}

impl Drop for LoadedModule {
    fn drop(&mut self) {
        unsafe { mlir_sys::mlirModuleDestroy(self.module) };
    }
}

fn string_ref(s: &str) -> mlir_sys::MlirStringRef {
    mlir_sys::MlirStringRef { data: s.as_ptr() as *const _, length: s.len() }
}

fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    context
}

impl LoadedModule {
    /// Parses a file; locations in the IR carry its path.
    pub fn from_file(path: &Path) -> Result<Self, LoadError> {
        Self::from_file_with(path, false)
    }

    /// Like [`LoadedModule::from_file`]; `allow_unregistered` admits operations of unknown
    /// dialects, as mlir-opt's `--allow-unregistered-dialect` does.
    pub fn from_file_with(path: &Path, allow_unregistered: bool) -> Result<Self, LoadError> {
        // Check first so that a missing file gets an I/O error, not a parser one.
        std::fs::metadata(path).map_err(|source| LoadError::Read { path: path.into(), source })?;
        let path_str = path.to_string_lossy();
        Self::parse(path, allow_unregistered, |context| unsafe {
            mlir_sys::mlirModuleCreateParseFromFile(context, string_ref(&path_str))
        })
    }

    /// Parses MLIR text (used by tests); locations are `-:line:col`.
    pub fn from_source(source: &str) -> Result<Self, LoadError> {
        Self::parse(Path::new("<string>"), false, |context| unsafe {
            mlir_sys::mlirModuleCreateParse(context, string_ref(source))
        })
    }

    fn parse(
        path: &Path,
        allow_unregistered: bool,
        parse: impl FnOnce(mlir_sys::MlirContext) -> mlir_sys::MlirModule,
    ) -> Result<Self, LoadError> {
        let context = new_context();
        context.set_allow_unregistered_dialects(allow_unregistered);
        let diagnostics = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = diagnostics.clone();
        let handler = context.attach_diagnostic_handler(move |d| {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(format!("{}: {}", d.location(), d));
            true
        });
        let module = parse(context.to_raw());
        context.detach_diagnostic_handler(handler);
        if module.ptr.is_null() {
            let diagnostics = diagnostics.lock().unwrap_or_else(|p| p.into_inner()).join("\n");
            return Err(LoadError::Parse { path: path.into(), diagnostics });
        }
        Ok(LoadedModule { module, _context: context })
    }

    pub fn operation(&self) -> Op {
        Op(unsafe { mlir_sys::mlirModuleGetOperation(self.module) })
    }

    /// Appends a copy of `func` named `name` to the module's body and returns it.
    pub fn add_copy(&self, func: Op, name: &str) -> Op {
        unsafe {
            let copy = mlir_sys::mlirOperationClone(func.0);
            let body = mlir_sys::mlirModuleGetBody(self.module);
            mlir_sys::mlirBlockAppendOwnedOperation(body, copy);
            let op = Op(copy);
            rename(op, name);
            op
        }
    }

    /// Removes `op` (a function added with `add_copy`) from the module and destroys it.
    pub fn remove(&self, op: Op) {
        unsafe {
            mlir_sys::mlirOperationRemoveFromParent(op.0);
            mlir_sys::mlirOperationDestroy(op.0);
        }
    }

    /// Every `func.func` with a body, in order, including those of nested modules.
    pub fn functions(&self) -> Vec<Op> {
        fn walk(op: Op, out: &mut Vec<Op>) {
            for block in op.blocks() {
                for inner in block.ops() {
                    match inner.name().as_str() {
                        "func.func" if inner.body().is_some() => out.push(inner),
                        "builtin.module" => walk(inner, out),
                        _ => {}
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(self.operation(), &mut out);
        out
    }
}

/// Sets a function's symbol name.
pub fn rename(func: Op, name: &str) {
    unsafe {
        let ctx = mlir_sys::mlirOperationGetContext(func.0);
        let attr = mlir_sys::mlirStringAttrGet(ctx, string_ref(name));
        mlir_sys::mlirOperationSetAttributeByName(func.0, string_ref("sym_name"), attr);
    }
}
