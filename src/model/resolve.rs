//! Name resolution and static checks (docs/language.md §4, including those the reference
//! tool misses). Several errors are reported at once where possible.
//!
//! One file, although long: resolution and the static checks are one pass over the syntax
//! tree sharing one scope (names, types, stigmergies, what each expression flavour admits),
//! and read best in the order of docs/language.md §4.

use super::expr::{AgentRef, BExpr, Expr, QPred, TypeId, VarId, VarRef};
use super::{
    Action, ActionKind, AgentType, Assign, Assumption, Init, LocalTarget, Modality, Model, Pattern, Proc, ProcDef,
    Property, Stigmergy, Stmt, Store, Target, Tuple, Variable, arith,
};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::syntax::ast::{self, AssignOp, Ident, Owner};
use crate::syntax::span::Span;
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Clone, Debug)]
pub enum ResolveError {
    /// Externs used by the spec but not given (names with their leading `_`).
    MissingExterns(Vec<String>),
    /// Static errors (and the warnings found before them).
    Invalid(Diagnostics),
    /// Errors caused only by the extern values given (a non-positive array size, a negative
    /// spawn count): the spec is fine, the command line is not.
    BadExternValues(Diagnostics),
}

/// Resolves `spec` (parsed from `source`) with the given extern values (keys with a leading
/// `_`); on success also returns the warnings.
pub fn resolve(
    spec: &ast::Spec,
    source: &str,
    externs: &BTreeMap<String, i64>,
) -> Result<(Model, Diagnostics), ResolveError> {
    let mut r = Resolver {
        spec,
        source,
        externs,
        diags: Diagnostics::default(),
        types: vec![],
        type_decl: vec![],
        vars: vec![],
        globals: HashMap::new(),
        attrs: HashMap::new(),
        own_attrs: vec![],
        tuples: vec![],
        stigs: vec![],
        env_len: 0,
        attr_len: 0,
        stig_len: 0,
        assumptions: vec![],
        properties: vec![],
        extern_value_errors: 0,
        empty_by_extern: vec![],
    };
    r.check_externs()?;
    r.check_duplicates();
    r.layout_types();
    r.layout_variables();
    if r.diags.has_errors() {
        let errors = r.diags.items.iter().filter(|d| d.is_error()).count();
        if errors == r.extern_value_errors {
            return Err(ResolveError::BadExternValues(r.diags));
        }
        return Err(ResolveError::Invalid(r.diags));
    }
    r.resolve_inits();
    r.resolve_stigmergies();
    r.resolve_processes();
    r.resolve_properties();
    if r.diags.has_errors() {
        let errors = r.diags.items.iter().filter(|d| d.is_error()).count();
        if errors == r.extern_value_errors {
            return Err(ResolveError::BadExternValues(dedup(r.diags)));
        }
        return Err(ResolveError::Invalid(dedup(r.diags)));
    }
    let model = Model {
        externs: spec_externs(spec, externs),
        agent_types: r.types,
        vars: r.vars,
        tuples: r.tuples,
        stigmergies: r.stigs,
        env_len: r.env_len,
        attr_len: r.attr_len,
        stig_len: r.stig_len,
        assumptions: r.assumptions,
        properties: r.properties,
    };
    Ok((model, dedup(r.diags)))
}

fn dedup(d: Diagnostics) -> Diagnostics {
    let mut seen = BTreeSet::new();
    let items = d.items.into_iter().filter(|x| seen.insert((x.span, x.message.clone()))).collect();
    Diagnostics { items }
}

fn spec_externs(spec: &ast::Spec, given: &BTreeMap<String, i64>) -> BTreeMap<String, i64> {
    let used = used_externs(spec);
    given.iter().filter(|(k, _)| used.contains_key(*k)).map(|(k, v)| (k.clone(), *v)).collect()
}

/// Every extern mentioned in the spec, with its first occurrence.
fn used_externs(spec: &ast::Spec) -> BTreeMap<String, Span> {
    let mut out = BTreeMap::new();
    let text_walk = |e: &ast::Expr, out: &mut BTreeMap<String, Span>| {
        walk_ast_expr(e, &mut |x| {
            if let ast::Expr::Extern(i) = x {
                out.entry(i.name.clone()).or_insert(i.span);
            }
        })
    };
    visit_spec_exprs(spec, &mut |e| text_walk(e, &mut out));
    out
}

fn walk_ast_expr(e: &ast::Expr, f: &mut dyn FnMut(&ast::Expr)) {
    f(e);
    match e {
        ast::Expr::Int(..) | ast::Expr::Extern(_) => {}
        ast::Expr::Id { owner, .. } => walk_owner(owner, f),
        ast::Expr::Var { indices, owner, .. } => {
            indices.iter().for_each(|i| walk_ast_expr(i, f));
            walk_owner(owner, f);
        }
        ast::Expr::Neg(a, _) | ast::Expr::Abs(a, _) | ast::Expr::Paren(a, _) => walk_ast_expr(a, f),
        ast::Expr::Bin(_, a, b, _) | ast::Expr::MinMax(_, a, b, _) | ast::Expr::NonDet(a, b, _) => {
            walk_ast_expr(a, f);
            walk_ast_expr(b, f);
        }
        ast::Expr::If { cond, then, els, .. } => {
            walk_ast_bexpr(cond, f);
            walk_ast_expr(then, f);
            walk_ast_expr(els, f);
        }
    }
}

fn walk_owner(o: &Option<Owner>, f: &mut dyn FnMut(&ast::Expr)) {
    if let Some(Owner::Expr(e)) = o {
        walk_ast_expr(e, f);
    }
}

fn walk_ast_bexpr(b: &ast::BExpr, f: &mut dyn FnMut(&ast::Expr)) {
    match b {
        ast::BExpr::Bool(..) => {}
        ast::BExpr::Not(x, _) | ast::BExpr::Paren(x, _) => walk_ast_bexpr(x, f),
        ast::BExpr::Cmp(_, a, c, _) => {
            walk_ast_expr(a, f);
            walk_ast_expr(c, f);
        }
        ast::BExpr::Logic(_, a, c, _) => {
            walk_ast_bexpr(a, f);
            walk_ast_bexpr(c, f);
        }
        ast::BExpr::Truthy(e) => walk_ast_expr(e, f),
    }
}

/// Calls `f` on every top-level expression of the spec (each is walked by the caller).
fn visit_spec_exprs(spec: &ast::Spec, f: &mut dyn FnMut(&ast::Expr)) {
    let bex = |b: &ast::BExpr, f: &mut dyn FnMut(&ast::Expr)| walk_ast_bexpr(b, f);
    let decl = |d: &ast::VarName, init: Option<&ast::Init>, f: &mut dyn FnMut(&ast::Expr)| {
        d.dims.iter().for_each(|e| walk_ast_expr(e, f));
        match init {
            Some(ast::Init::Choice(v, _)) => v.iter().for_each(|e| walk_ast_expr(e, f)),
            Some(ast::Init::Range(a, b, _)) => {
                walk_ast_expr(a, f);
                walk_ast_expr(b, f);
            }
            Some(ast::Init::Single(e)) => walk_ast_expr(e, f),
            _ => {}
        }
    };
    let sys = &spec.system;
    for d in &sys.environment {
        decl(&d.var, Some(&d.init), f);
    }
    for s in &sys.spawn {
        walk_ast_expr(&s.count, f);
    }
    for p in &sys.processes {
        visit_proc_exprs(&p.body, f);
    }
    for s in &spec.stigmergies {
        bex(&s.link, f);
        for t in &s.tuples {
            for v in &t.vars {
                decl(v, None, f);
            }
            for i in &t.inits {
                decl(
                    &ast::VarName { name: Ident { name: String::new(), span: Span::default() }, dims: vec![] },
                    Some(i),
                    f,
                );
            }
        }
    }
    for a in &spec.agents {
        for d in &a.interface {
            decl(&d.var, Some(&d.init), f);
        }
        for p in &a.processes {
            visit_proc_exprs(&p.body, f);
        }
    }
    for q in spec.assumptions.iter().map(|a| &a.pred).chain(spec.properties.iter().map(|p| &p.pred)) {
        bex(&q.body, f);
    }
    for p in &spec.properties {
        match &p.modality {
            ast::Modality::Between { open, close, pattern } | ast::Modality::FromUntil { open, close, pattern } => {
                bex(&open.body, f);
                bex(&close.body, f);
                if let ast::Pattern::Precedes(q) = pattern {
                    bex(&q.body, f);
                }
            }
            ast::Modality::Ltl(l) => l.atoms().into_iter().for_each(|q| bex(&q.body, f)),
            _ => {}
        }
    }
}

fn visit_proc_exprs(p: &ast::Proc, f: &mut dyn FnMut(&ast::Expr)) {
    let action = |a: &ast::Action, f: &mut dyn FnMut(&ast::Expr)| {
        for l in &a.lhs {
            l.indices.iter().for_each(|e| walk_ast_expr(e, f));
        }
        a.rhs.iter().for_each(|e| walk_ast_expr(e, f));
    };
    match p {
        ast::Proc::Par(v, _) | ast::Proc::Choice(v, _) | ast::Proc::Seq(v, _) => {
            v.iter().for_each(|x| visit_proc_exprs(x, f))
        }
        ast::Proc::Guard { cond, body, .. } => {
            walk_ast_bexpr(cond, f);
            visit_proc_exprs(body, f);
        }
        ast::Proc::Paren(x, _) => visit_proc_exprs(x, f),
        ast::Proc::Skip(_) | ast::Proc::Nil(_) | ast::Proc::Call(_) => {}
        ast::Proc::Action(a) => action(a, f),
        ast::Proc::Block(stmts, _) => {
            for s in stmts {
                match s {
                    ast::Stmt::Assign(a) => action(a, f),
                    ast::Stmt::Local { lhs, rhs, .. } => {
                        for l in lhs {
                            l.indices.iter().for_each(|e| walk_ast_expr(e, f));
                        }
                        rhs.iter().for_each(|e| walk_ast_expr(e, f));
                    }
                    ast::Stmt::Pick { count, filter, .. } => {
                        walk_ast_expr(count, f);
                        if let Some(b) = filter {
                            walk_ast_bexpr(b, f);
                        }
                    }
                    ast::Stmt::Quant { pred, .. } | ast::Stmt::Count { pred, .. } => walk_ast_bexpr(pred, f),
                }
            }
        }
    }
}

/// Where an expression occurs, which decides the names it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavour {
    /// Initialisers, array sizes, `pick` counts; `id` only where `allow_id`.
    Const { allow_id: bool },
    /// Actions, guards, blocks.
    Process,
    /// Link predicates and `pick … where` filters.
    Link,
    /// Properties and assumptions.
    Property,
}

/// The names in scope for one expression.
struct Scope<'s> {
    flavour: Flavour,
    /// The acting agent type (processes).
    agent: Option<TypeId>,
    /// Block locals: name → (first slot, length, is a pick array).
    locals: Option<&'s HashMap<String, (usize, usize)>>,
    /// Locals assigned so far in the block (a local must be assigned before use).
    assigned: Option<&'s BTreeSet<String>>,
    /// Quantified variables in scope, innermost last: (name, type).
    quants: &'s [(String, TypeId)],
}

struct Resolver<'a> {
    spec: &'a ast::Spec,
    source: &'a str,
    externs: &'a BTreeMap<String, i64>,
    diags: Diagnostics,
    types: Vec<AgentType>,
    /// Index of each spawned type's agent declaration in `spec.agents`.
    type_decl: Vec<usize>,
    vars: Vec<Variable>,
    /// Environment and stigmergic variables by name.
    globals: HashMap<String, VarId>,
    /// Attributes by name (one slot range shared by all types declaring the name).
    attrs: HashMap<String, VarId>,
    /// The attribute names each type declares.
    own_attrs: Vec<BTreeSet<String>>,
    tuples: Vec<Tuple>,
    stigs: Vec<Stigmergy>,
    env_len: usize,
    attr_len: usize,
    stig_len: usize,
    assumptions: Vec<Assumption>,
    properties: Vec<Property>,
    /// How many errors come from extern values alone (see `ResolveError::BadExternValues`).
    extern_value_errors: usize,
    /// Agent types spawned 0 times because of extern values.
    empty_by_extern: Vec<String>,
}

/// `x of a` in a property where `a` is not quantified.
fn unquantified(name: &ast::Ident) -> Diagnostic {
    let a = &name.name;
    Diagnostic::error(name.span, format!("`{a}` is not a quantified agent here")).with_hint(format!(
        "`{a}` names an agent only in the predicate of its quantifier (`forall T {a}, …`); in a linear-time \
         formula that predicate ends before a temporal operator and before an `and` or `or` joining one"
    ))
}

impl<'a> Resolver<'a> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }

    /// An error about the value of `e`; when `e` uses externs, the hint names the values given.
    fn value_error(&mut self, e: &ast::Expr, msg: String) {
        let mut names = BTreeSet::new();
        walk_ast_expr(e, &mut |x| {
            if let ast::Expr::Extern(i) = x {
                names.insert(i.name.clone());
            }
        });
        let mut d = Diagnostic::error(e.span(), msg);
        if !names.is_empty() {
            let given: Vec<String> = names
                .iter()
                .map(|n| match self.externs.get(n) {
                    Some(v) => format!("`{n}={v}`"),
                    None => format!("`{n}`"),
                })
                .collect();
            d = d.with_hint(format!(
                "this value comes from the command line ({}): give another value",
                given.join(", ")
            ));
            self.extern_value_errors += 1;
        }
        self.diags.push(d);
    }

    fn check_externs(&mut self) -> Result<(), ResolveError> {
        let used = used_externs(self.spec);
        let declared: BTreeMap<&str, Span> =
            self.spec.system.externs.iter().map(|i| (i.name.as_str(), i.span)).collect();
        for (name, span) in &used {
            if !declared.contains_key(name.as_str()) {
                self.diags.push(
                    Diagnostic::error(*span, format!("extern `{name}` is used but not declared"))
                        .with_hint("add it to the system's `extern = …` list"),
                );
            }
        }
        for (name, span) in &declared {
            if !used.contains_key(*name) {
                self.diags.warning(*span, format!("extern `{name}` is declared but never used"));
            }
        }
        let mut seen = BTreeSet::new();
        for i in &self.spec.system.externs {
            if !seen.insert(i.name.as_str()) {
                self.error(i.span, format!("extern `{}` is declared twice", i.name));
            }
        }
        if self.diags.has_errors() {
            return Err(ResolveError::Invalid(std::mem::take(&mut self.diags)));
        }
        let missing: Vec<String> = used.keys().filter(|n| !self.externs.contains_key(*n)).cloned().collect();
        if !missing.is_empty() {
            return Err(ResolveError::MissingExterns(missing));
        }
        Ok(())
    }

    fn check_duplicates(&mut self) {
        let spec = self.spec;
        let dup = |items: Vec<&Ident>, what: &str, diags: &mut Diagnostics| {
            let mut first: HashMap<&str, Span> = HashMap::new();
            for i in items {
                if let Some(prev) = first.get(i.name.as_str()) {
                    let (_, _) = (prev, i);
                    diags.push(
                        Diagnostic::error(i.span, format!("duplicate definition of {what} `{}`", i.name))
                            .with_hint("each name may be defined only once here"),
                    );
                } else {
                    first.insert(&i.name, i.span);
                }
            }
        };
        dup(spec.system.spawn.iter().map(|s| &s.agent).collect(), "spawn entry", &mut self.diags);
        dup(spec.agents.iter().map(|a| &a.name).collect(), "agent type", &mut self.diags);
        dup(spec.stigmergies.iter().map(|a| &a.name).collect(), "stigmergy", &mut self.diags);
        dup(spec.system.processes.iter().map(|a| &a.name).collect(), "global process", &mut self.diags);
        dup(spec.properties.iter().map(|a| &a.name).collect(), "property", &mut self.diags);
        dup(spec.assumptions.iter().map(|a| &a.name).collect(), "assumption", &mut self.diags);
        let mut globals: Vec<&Ident> = spec.system.environment.iter().map(|d| &d.var.name).collect();
        for s in &spec.stigmergies {
            for t in &s.tuples {
                globals.extend(t.vars.iter().map(|v| &v.name));
            }
        }
        dup(globals.clone(), "variable", &mut self.diags);
        let global_names: BTreeSet<&str> = globals.iter().map(|i| i.name.as_str()).collect();
        for a in &spec.agents {
            dup(a.processes.iter().map(|p| &p.name).collect(), "process", &mut self.diags);
            dup(a.interface.iter().map(|d| &d.var.name).collect(), "attribute", &mut self.diags);
            for d in &a.interface {
                if global_names.contains(d.var.name.name.as_str()) {
                    self.diags.push(Diagnostic::error(
                        d.var.name.span,
                        format!("attribute `{}` clashes with an environment or stigmergic variable", d.var.name.name),
                    ));
                }
            }
            if !a.processes.iter().any(|p| p.name.name == "Behavior") {
                self.diags.push(
                    Diagnostic::error(a.name.span, format!("agent `{}` has no `Behavior`", a.name.name))
                        .with_hint("define its entry point: `Behavior = …`"),
                );
            }
        }
    }

    fn const_eval(&mut self, e: &ast::Expr, allow_id: Option<i64>, what: &str) -> Option<i64> {
        match const_value(e, self.externs, allow_id) {
            Ok(v) => Some(v),
            Err(NotConst::UnknownExtern) => None,
            Err(NotConst::Arith(err, span)) => self.arith(Err(err), span),
            Err(NotConst::Id(span)) => {
                self.error(span, format!("`id` is not allowed in {what}"));
                None
            }
            Err(NotConst::NotConstant(span)) => {
                self.diags.push(
                    Diagnostic::error(span, format!("{what} must be a constant expression"))
                        .with_hint("use only numbers, externs and arithmetic"),
                );
                None
            }
        }
    }

    fn arith(&mut self, r: Result<i64, arith::ArithError>, span: Span) -> Option<i64> {
        match r {
            Ok(v) => Some(v),
            Err(arith::ArithError::DivisionByZero) => {
                self.error(span, "division by zero in a constant expression");
                None
            }
            Err(arith::ArithError::Overflow) => {
                self.error(span, "arithmetic overflow in a constant expression");
                None
            }
        }
    }

    /// Agent types in byte-wise name order with contiguous id ranges (D1).
    fn layout_types(&mut self) {
        let spec = self.spec;
        let mut entries: Vec<(String, usize, usize, Span)> = Vec::new();
        for s in &spec.system.spawn {
            let Some(count) = self.const_eval(&s.count, None, "a spawn count") else { continue };
            let Some(decl) = spec.agents.iter().position(|a| a.name.name == s.agent.name) else {
                self.error(s.agent.span, format!("agent type `{}` is spawned but not defined", s.agent.name));
                continue;
            };
            if count < 0 {
                self.value_error(
                    &s.count,
                    format!("cannot spawn a negative number ({count}) of agents `{}`", s.agent.name),
                );
                continue;
            }
            if count == 0 {
                self.diags.warning(
                    s.count.span(),
                    format!("agent type `{}` is spawned 0 times: it has no agents", s.agent.name),
                );
                let mut by_extern = false;
                walk_ast_expr(&s.count, &mut |x| by_extern |= matches!(x, ast::Expr::Extern(_)));
                if by_extern {
                    self.empty_by_extern.push(s.agent.name.clone());
                }
            }
            if count > 1_000_000 {
                self.value_error(&s.count, format!("too many agents ({count})"));
                continue;
            }
            if !entries.iter().any(|e| e.0 == s.agent.name) {
                entries.push((s.agent.name.clone(), count as usize, decl, spec.agents[decl].span));
            }
        }
        for a in &spec.agents {
            if !spec.system.spawn.iter().any(|s| s.agent.name == a.name.name) {
                self.diags.warning(a.name.span, format!("agent type `{}` is never spawned", a.name.name));
            }
        }
        entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut next = 0;
        for (name, count, decl, span) in entries {
            self.types.push(AgentType {
                name,
                first_id: next,
                count,
                attrs: vec![],
                stigmergies: vec![],
                processes: BTreeMap::new(),
                span,
            });
            self.type_decl.push(decl);
            next += count;
        }
        self.own_attrs = vec![BTreeSet::new(); self.types.len()];
    }

    fn dims(&mut self, v: &ast::VarName) -> Option<(Vec<usize>, usize)> {
        let mut dims = vec![];
        let mut len: usize = 1;
        for d in &v.dims {
            let n = self.const_eval(d, None, "an array size")?;
            if n <= 0 || n > 1_000_000 {
                let what = if n <= 0 { "a positive size" } else { "at most 1000000 elements" };
                self.value_error(d, format!("array `{}` must have {what} (got {n})", v.name.name));
                return None;
            }
            dims.push(n as usize);
            len = len.saturating_mul(n as usize);
        }
        if len > 1_000_000 {
            self.error(v.name.span, format!("array `{}` is too large", v.name.name));
            return None;
        }
        Some((dims, len))
    }

    fn layout_variables(&mut self) {
        let spec = self.spec;
        for d in &spec.system.environment {
            let Some((dims, len)) = self.dims(&d.var) else { continue };
            let id = self.vars.len();
            self.vars.push(Variable {
                name: d.var.name.name.clone(),
                store: Store::Env,
                dims,
                len,
                offset: self.env_len,
                inits: vec![],
            });
            self.env_len += len;
            self.globals.insert(d.var.name.name.clone(), id);
        }
        for (si, s) in spec.stigmergies.iter().enumerate() {
            let mut tuples = vec![];
            for t in &s.tuples {
                if t.vars.len() != t.inits.len() {
                    self.error(
                        t.span,
                        format!(
                            "a tuple needs as many initialisers as variables ({} variables, {} initialisers)",
                            t.vars.len(),
                            t.inits.len()
                        ),
                    );
                    continue;
                }
                let tid = self.tuples.len();
                let mut members = vec![];
                for v in &t.vars {
                    let Some((dims, len)) = self.dims(v) else { continue };
                    let id = self.vars.len();
                    self.vars.push(Variable {
                        name: v.name.name.clone(),
                        store: Store::Stig { stigmergy: si, tuple: tid },
                        dims,
                        len,
                        offset: self.stig_len,
                        inits: vec![],
                    });
                    self.stig_len += len;
                    self.globals.insert(v.name.name.clone(), id);
                    members.push(id);
                }
                self.tuples.push(Tuple { stigmergy: si, vars: members });
                tuples.push(tid);
            }
            self.stigs.push(Stigmergy { name: s.name.name.clone(), link: BExpr::Const(true), tuples, span: s.span });
        }
        if self.tuples.len() > 64 {
            self.error(spec.stigmergies[0].span, "more than 64 stigmergic tuples are not supported");
        }
        for ty in 0..self.types.len() {
            let decl = &spec.agents[self.type_decl[ty]];
            for d in &decl.interface {
                let Some((dims, len)) = self.dims(&d.var) else { continue };
                let name = &d.var.name.name;
                let id = match self.attrs.get(name) {
                    Some(&id) => {
                        if self.vars[id].dims != dims {
                            self.error(
                                d.var.name.span,
                                format!(
                                    "attribute `{name}` is declared with different array sizes by different agent types"
                                ),
                            );
                        }
                        id
                    }
                    None => {
                        let id = self.vars.len();
                        self.vars.push(Variable {
                            name: name.clone(),
                            store: Store::Attr,
                            dims,
                            len,
                            offset: self.attr_len,
                            inits: vec![],
                        });
                        self.attr_len += len;
                        self.attrs.insert(name.clone(), id);
                        id
                    }
                };
                self.types[ty].attrs.push(id);
                self.own_attrs[ty].insert(name.clone());
            }
            for s in &decl.stigmergies {
                match spec.stigmergies.iter().position(|x| x.name.name == s.name) {
                    Some(si) => {
                        if !self.types[ty].stigmergies.contains(&si) {
                            self.types[ty].stigmergies.push(si);
                        }
                    }
                    None => self.error(s.span, format!("stigmergy `{}` is not defined", s.name)),
                }
            }
        }
    }

    fn resolve_init(&mut self, init: &ast::Init, allow_id: bool) -> Option<Init> {
        let scope =
            Scope { flavour: Flavour::Const { allow_id }, agent: None, locals: None, assigned: None, quants: &[] };
        Some(match init {
            ast::Init::Undef(_) => Init::Undef,
            ast::Init::Single(e) => Init::Single(self.expr(e, &scope)?),
            ast::Init::Choice(v, _) => {
                let mut out = vec![];
                for e in v {
                    out.push(self.expr(e, &scope)?);
                }
                Init::Choice(out)
            }
            ast::Init::Range(a, b, span) => {
                if let (Some(x), Some(y)) =
                    (const_value(a, self.externs, None).ok(), const_value(b, self.externs, None).ok())
                    && x >= y
                {
                    self.diags.warning(
                        *span,
                        format!("the range {x}..{y} is empty (the upper bound is excluded): no initial state"),
                    );
                }
                Init::Range(self.expr(a, &scope)?, self.expr(b, &scope)?)
            }
        })
    }

    fn resolve_inits(&mut self) {
        let spec = self.spec;
        for d in &spec.system.environment {
            if let Some(i) = self.resolve_init(&d.init, false)
                && let Some(&v) = self.globals.get(&d.var.name.name)
            {
                self.vars[v].inits.push((None, i));
            }
        }
        for s in &spec.stigmergies {
            for t in &s.tuples {
                for (v, init) in t.vars.iter().zip(&t.inits) {
                    if let Some(i) = self.resolve_init(init, true)
                        && let Some(&id) = self.globals.get(&v.name.name)
                    {
                        self.vars[id].inits.push((None, i));
                    }
                }
            }
        }
        for ty in 0..self.types.len() {
            let decl = &spec.agents[self.type_decl[ty]];
            for d in &decl.interface {
                if let Some(i) = self.resolve_init(&d.init, true)
                    && let Some(&id) = self.attrs.get(&d.var.name.name)
                {
                    self.vars[id].inits.push((Some(ty), i));
                }
            }
        }
    }

    fn resolve_stigmergies(&mut self) {
        for (si, s) in self.spec.stigmergies.iter().enumerate() {
            let scope = Scope { flavour: Flavour::Link, agent: None, locals: None, assigned: None, quants: &[] };
            if let Some(b) = self.bexpr(&s.link, &scope) {
                self.stigs[si].link = b;
            }
        }
    }

    // ---------------------------------------------------------------- expressions

    fn lookup_var(&mut self, name: &Ident, scope: &Scope, owned: bool) -> Option<VarId> {
        if let Some(&v) = self.globals.get(&name.name) {
            return Some(v);
        }
        if let Some(&v) = self.attrs.get(&name.name) {
            // A bare attribute must be the acting agent's own.
            if !owned
                && let Some(ty) = scope.agent
                && !self.own_attrs[ty].contains(&name.name)
            {
                self.error(
                    name.span,
                    format!("`{}` is not an attribute of agent type `{}`", name.name, self.types[ty].name),
                );
                return None;
            }
            return Some(v);
        }
        let hint = if name.name == "count" { " (`count` is a reserved word)" } else { "" };
        self.error(name.span, format!("undefined variable `{}`{hint}", name.name));
        None
    }

    fn quant_index(scope: &Scope, name: &str) -> Option<usize> {
        scope.quants.iter().rposition(|(n, _)| n == name)
    }

    fn owner(&mut self, owner: &Option<Owner>, scope: &Scope, span: Span) -> Option<AgentRef> {
        match (owner, scope.flavour) {
            (None, Flavour::Link) => {
                self.error(span, "a link predicate must say whose variable it reads: `of c1` or `of c2`");
                None
            }
            (None, _) => Some(AgentRef::Own),
            (Some(Owner::C1(_)), Flavour::Link) => Some(AgentRef::C1),
            (Some(Owner::C2(_)), Flavour::Link) => Some(AgentRef::C2),
            (Some(Owner::C1(s) | Owner::C2(s)), _) => {
                self.error(*s, "`c1` and `c2` name agents only in link predicates and `pick … where`");
                None
            }
            (Some(Owner::Expr(e)), Flavour::Property) => {
                // `x of a` (quantified) or `x of N`.
                match &**e {
                    ast::Expr::Var { name, indices, owner: None, .. } if indices.is_empty() => {
                        match Self::quant_index(scope, &name.name) {
                            Some(i) => Some(AgentRef::Of(Box::new(Expr::QVar(i)))),
                            None => {
                                self.diags.push(unquantified(name));
                                None
                            }
                        }
                    }
                    ast::Expr::Int(n, s) => {
                        let total = self.types.iter().map(|t| t.count).sum::<usize>() as i64;
                        if *n < 0 || *n >= total {
                            self.error(*s, format!("there is no agent {n} (agent ids are 0..{})", total - 1));
                            return None;
                        }
                        Some(AgentRef::Of(Box::new(Expr::Const(*n))))
                    }
                    other => {
                        self.error(other.span(), "after `of`, a property names a quantified agent or an agent id");
                        None
                    }
                }
            }
            (Some(Owner::Expr(e)), Flavour::Process) => Some(AgentRef::Of(Box::new(self.expr(e, scope)?))),
            (Some(Owner::Expr(e)), _) => {
                self.error(e.span(), "`of` is not allowed here");
                None
            }
        }
    }

    fn expr(&mut self, e: &ast::Expr, scope: &Scope) -> Option<Expr> {
        let bx = |x: Expr| Box::new(x);
        Some(match e {
            ast::Expr::Int(v, s) => {
                if *v > arith::MAX_VALUE {
                    self.error(*s, format!("the literal {v} is too large"));
                    return None;
                }
                Expr::Const(*v)
            }
            ast::Expr::Extern(i) => Expr::Const(*self.externs.get(&i.name)?),
            ast::Expr::Paren(a, _) => self.expr(a, scope)?,
            ast::Expr::Neg(a, _) => {
                let a = self.expr(a, scope)?;
                match a {
                    Expr::Const(v) => Expr::Const(-v),
                    a => Expr::Neg(bx(a)),
                }
            }
            ast::Expr::Abs(a, _) => Expr::Abs(bx(self.expr(a, scope)?)),
            ast::Expr::Bin(op, a, b, _) => {
                let (a, b) = (self.expr(a, scope), self.expr(b, scope));
                Expr::Bin(*op, bx(a?), bx(b?))
            }
            ast::Expr::MinMax(m, a, b, _) => {
                let (a, b) = (self.expr(a, scope), self.expr(b, scope));
                Expr::MinMax(*m, bx(a?), bx(b?))
            }
            ast::Expr::If { cond, then, els, span } => {
                if scope.flavour != Flavour::Process {
                    self.error(*span, "`if … then … else` is allowed only in processes");
                    return None;
                }
                let c = self.bexpr(cond, scope);
                let (t, f) = (self.expr(then, scope), self.expr(els, scope));
                Expr::If(Box::new(c?), bx(t?), bx(f?))
            }
            ast::Expr::NonDet(a, b, span) => {
                if scope.flavour != Flavour::Process {
                    self.error(*span, "a nondeterministic value `[a..b]` is allowed only in processes");
                    return None;
                }
                let (a, b) = (self.expr(a, scope), self.expr(b, scope));
                Expr::NonDet(bx(a?), bx(b?))
            }
            ast::Expr::Id { owner, span } => match scope.flavour {
                Flavour::Const { allow_id: false } => {
                    self.error(*span, "`id` is not allowed here");
                    return None;
                }
                Flavour::Property if owner.is_none() => {
                    self.diags.push(
                        Diagnostic::error(*span, "a property cannot use a bare `id`")
                            .with_hint("quantify over agents and write `id of a`"),
                    );
                    return None;
                }
                Flavour::Property => match self.owner(owner, scope, *span)? {
                    AgentRef::Of(e) => *e,
                    other => Expr::AgentId(other),
                },
                _ => Expr::AgentId(self.owner(owner, scope, *span)?),
            },
            ast::Expr::Var { name, indices, owner, span } => return self.var_expr(name, indices, owner, *span, scope),
        })
    }

    fn var_expr(
        &mut self,
        name: &Ident,
        indices: &[ast::Expr],
        owner: &Option<Owner>,
        span: Span,
        scope: &Scope,
    ) -> Option<Expr> {
        if let Flavour::Const { .. } = scope.flavour {
            self.diags.push(
                Diagnostic::error(name.span, format!("a constant expression cannot read the variable `{}`", name.name))
                    .with_hint("initialisers and sizes may use only numbers, externs and `id`"),
            );
            return None;
        }
        // Block locals shadow everything else.
        if owner.is_none()
            && let Some(locals) = scope.locals
            && let Some(&(slot, len)) = locals.get(&name.name)
        {
            if let Some(assigned) = scope.assigned
                && !assigned.contains(&name.name)
            {
                self.error(name.span, format!("local `{}` is used before it is assigned in this block", name.name));
                return None;
            }
            let index = match indices.len() {
                0 if len == 1 => None,
                1 => Some(Box::new(self.expr(&indices[0], scope)?)),
                _ => {
                    self.error(
                        span,
                        format!("local `{}` takes {} index", name.name, if len == 1 { "no" } else { "one" }),
                    );
                    return None;
                }
            };
            return Some(Expr::Local { slot, len, index });
        }
        // A quantified name stands for its agent's id (inside forall/exists/count).
        if owner.is_none()
            && indices.is_empty()
            && let Some(i) = Self::quant_index(scope, &name.name)
        {
            if scope.flavour == Flavour::Property {
                self.diags.push(Diagnostic::error(
                    name.span,
                    format!("write `id of {}` for the id of a quantified agent", name.name),
                ));
                return None;
            }
            return Some(Expr::QVar(i));
        }
        let var = self.lookup_var(name, scope, owner.is_some())?;
        let is_env = self.vars[var].store == Store::Env;
        let owner = if is_env {
            // The environment is shared: `e of a` reads the one value and evaluates nothing of
            // `a`, whose names must still exist (a typo is an error, not a silent no-op).
            if owner.is_some() {
                self.owner(owner, scope, span)?;
            }
            AgentRef::Own
        } else if scope.flavour == Flavour::Property && owner.is_none() {
            self.diags.push(
                Diagnostic::error(name.span, format!("`{}` is not an environment variable", name.name)).with_hint(
                    format!("say whose copy the property reads: `{} of a` with a quantified `a`", name.name),
                ),
            );
            return None;
        } else {
            self.owner(owner, scope, span)?
        };
        let indices = self.indices(var, indices, span, scope)?;
        Some(Expr::Var(VarRef { var, indices, owner }))
    }

    fn indices(&mut self, var: VarId, indices: &[ast::Expr], span: Span, scope: &Scope) -> Option<Vec<Expr>> {
        let v = &self.vars[var];
        if indices.len() != v.dims.len() {
            let msg = if v.dims.is_empty() {
                format!("`{}` is not an array", v.name)
            } else {
                format!("`{}` needs {} index(es), got {}", v.name, v.dims.len(), indices.len())
            };
            self.error(span, msg);
            return None;
        }
        let dims = v.dims.clone();
        let name = v.name.clone();
        let mut out = vec![];
        for (i, d) in indices.iter().zip(dims) {
            let e = self.expr(i, scope)?;
            if let Expr::Const(c) = e
                && (c < 0 || c >= d as i64)
            {
                self.error(i.span(), format!("index {c} is out of bounds for `{name}` (size {d})"));
                return None;
            }
            out.push(e);
        }
        Some(out)
    }

    fn bexpr(&mut self, b: &ast::BExpr, scope: &Scope) -> Option<BExpr> {
        Some(match b {
            ast::BExpr::Bool(v, _) => BExpr::Const(*v),
            ast::BExpr::Not(x, _) => BExpr::Not(Box::new(self.bexpr(x, scope)?)),
            ast::BExpr::Paren(x, _) => self.bexpr(x, scope)?,
            ast::BExpr::Cmp(op, a, c, _) => {
                let (a, c) = (self.expr(a, scope), self.expr(c, scope));
                BExpr::Cmp(*op, a?, c?)
            }
            ast::BExpr::Logic(op, a, c, _) => {
                let (a, c) = (self.bexpr(a, scope), self.bexpr(c, scope));
                let (a, c) = (Box::new(a?), Box::new(c?));
                match op {
                    ast::BoolOp::And => BExpr::And(a, c),
                    ast::BoolOp::Or => BExpr::Or(a, c),
                }
            }
            ast::BExpr::Truthy(e) => BExpr::Cmp(ast::CmpOp::Ne, self.expr(e, scope)?, Expr::Const(0)),
        })
    }

    fn quants(
        &mut self,
        qs: &[ast::Quantifier],
        outer: &[(String, TypeId)],
    ) -> Option<Vec<(String, TypeId, ast::QuantKind)>> {
        let mut out: Vec<(String, TypeId, ast::QuantKind)> = vec![];
        let mut ok = true;
        for q in qs {
            if outer.iter().any(|(n, _)| *n == q.var.name) || out.iter().any(|(n, _, _)| *n == q.var.name) {
                self.error(q.var.span, format!("`{}` is quantified twice", q.var.name));
                ok = false;
                continue;
            }
            match self.types.iter().position(|t| t.name == q.agent.name) {
                Some(t) if self.types[t].count > 0 => out.push((q.var.name.clone(), t, q.kind)),
                Some(_) => {
                    let mut d = Diagnostic::error(
                        q.agent.span,
                        format!("agent type `{}` has no agents (spawned 0 times)", q.agent.name),
                    );
                    if self.empty_by_extern.contains(&q.agent.name) {
                        // The spec is fine with other values: the command line is at fault.
                        d = d.with_hint("its spawn count comes from the command line: give another value");
                        self.extern_value_errors += 1;
                    }
                    self.diags.push(d);
                    ok = false;
                }
                None => {
                    self.error(q.agent.span, format!("agent type `{}` is not spawned", q.agent.name));
                    ok = false;
                }
            }
        }
        if qs.iter().any(|q| q.kind != qs[0].kind) {
            self.diags.warning(
                qs[0].var.span,
                "mixed `forall`/`exists` quantifiers nest in textual order here; the reference tool nests them differently",
            );
        }
        ok.then_some(out)
    }

    fn qpred(&mut self, q: &ast::QPred, flavour: Flavour) -> Option<QPred> {
        let qs = self.quants(&q.quants, &[])?;
        let names: Vec<(String, TypeId)> = qs.iter().map(|(n, t, _)| (n.clone(), *t)).collect();
        let scope = Scope { flavour, agent: None, locals: None, assigned: None, quants: &names };
        let body = self.bexpr(&q.body, &scope)?;
        Some(QPred { quants: qs.iter().map(|(_, t, k)| (*k, *t)).collect(), body })
    }

    fn resolve_properties(&mut self) {
        let spec = self.spec;
        for a in &spec.assumptions {
            if let Some(pred) = self.qpred(&a.pred, Flavour::Property) {
                self.assumptions.push(Assumption { name: a.name.name.clone(), pred });
            }
        }
        for p in &spec.properties {
            let pred = self.qpred(&p.pred, Flavour::Property);
            let pattern = |r: &mut Self, pat: &ast::Pattern| -> Option<Pattern> {
                Some(match pat {
                    ast::Pattern::ThereIs => Pattern::ThereIs,
                    ast::Pattern::Always => Pattern::Always,
                    ast::Pattern::Precedes(q) => Pattern::Precedes(r.qpred(q, Flavour::Property)?),
                })
            };
            let modality = match &p.modality {
                ast::Modality::Always => Some(Modality::Always),
                ast::Modality::Eventually | ast::Modality::Finally => Some(Modality::Finally),
                ast::Modality::Fairly => Some(Modality::Fairly),
                ast::Modality::FairlyInf => Some(Modality::FairlyInf),
                ast::Modality::Between { open, close, pattern: pat } => {
                    let (o, c, pt) =
                        (self.qpred(open, Flavour::Property), self.qpred(close, Flavour::Property), pattern(self, pat));
                    Some(Modality::Between {
                        open: o.unwrap_or(dummy()),
                        close: c.unwrap_or(dummy()),
                        pattern: pt.unwrap_or(Pattern::Always),
                    })
                }
                ast::Modality::FromUntil { open, close, pattern: pat } => {
                    let (o, c, pt) =
                        (self.qpred(open, Flavour::Property), self.qpred(close, Flavour::Property), pattern(self, pat));
                    Some(Modality::FromUntil {
                        open: o.unwrap_or(dummy()),
                        close: c.unwrap_or(dummy()),
                        pattern: pt.unwrap_or(Pattern::Always),
                    })
                }
                ast::Modality::Ltl(f) => f.try_map(&mut |q| self.qpred(q, Flavour::Property)).map(Modality::Ltl),
            };
            let (Some(pred), Some(modality)) = (pred, modality) else { continue };
            let text = self
                .source
                .get(p.span.start as usize..p.span.end as usize)
                .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            // The span may start at the name: keep only `modality predicate`.
            let text = match text.strip_prefix(p.name.name.as_str()).map(str::trim_start) {
                Some(rest) => rest.strip_prefix('=').unwrap_or(rest).trim().to_string(),
                None => text,
            };
            self.properties.push(Property {
                name: p.name.name.clone(),
                keyword: p.modality.keyword().to_string(),
                modality,
                pred,
                text,
                span: p.name.span,
            });
        }
    }

    // ---------------------------------------------------------------- processes

    fn resolve_processes(&mut self) {
        let spec = self.spec;
        for ty in 0..self.types.len() {
            let decl = &spec.agents[self.type_decl[ty]];
            let mut visible: BTreeMap<String, &ast::ProcDef> = BTreeMap::new();
            for p in &spec.system.processes {
                visible.insert(p.name.name.clone(), p);
            }
            for p in &decl.processes {
                visible.insert(p.name.name.clone(), p);
            }
            let mut defs = BTreeMap::new();
            for (name, def) in &visible {
                let names: BTreeSet<String> = visible.keys().cloned().collect();
                if let Some(body) = self.proc(&def.body, ty, &names) {
                    defs.insert(name.clone(), ProcDef { body, span: def.name.span });
                }
            }
            self.types[ty].processes = defs;
        }
        self.infer_holders();
    }

    /// D7: a type that uses a stigmergic variable of a stigmergy it does not list holds it.
    fn infer_holders(&mut self) {
        for ty in 0..self.types.len() {
            let mut used: BTreeMap<usize, Span> = BTreeMap::new();
            for def in self.types[ty].processes.values() {
                collect_own_stig(&def.body, &self.vars, &mut used, def.span);
            }
            for (s, span) in used {
                if !self.types[ty].stigmergies.contains(&s) {
                    let msg = format!(
                        "agent type `{}` uses stigmergy `{}` without listing it in `stigmergies`; it is treated as a holder",
                        self.types[ty].name, self.stigs[s].name
                    );
                    self.diags.warning(span, msg);
                    self.types[ty].stigmergies.push(s);
                }
            }
            self.types[ty].stigmergies.sort_unstable();
        }
    }

    fn proc(&mut self, p: &ast::Proc, ty: TypeId, names: &BTreeSet<String>) -> Option<Proc> {
        let list = |r: &mut Self, v: &[ast::Proc]| -> Option<Vec<Proc>> {
            let items: Vec<Option<Proc>> = v.iter().map(|x| r.proc(x, ty, names)).collect();
            items.into_iter().collect()
        };
        Some(match p {
            ast::Proc::Par(v, _) => Proc::Par(list(self, v)?),
            ast::Proc::Choice(v, _) => Proc::Choice(list(self, v)?),
            ast::Proc::Seq(v, _) => Proc::Seq(list(self, v)?),
            ast::Proc::Paren(x, _) => self.proc(x, ty, names)?,
            ast::Proc::Skip(_) => Proc::Skip,
            ast::Proc::Nil(_) => Proc::Nil,
            ast::Proc::Call(i) => {
                if !names.contains(&i.name) {
                    self.error(i.span, format!("process `{}` is not defined", i.name));
                    return None;
                }
                Proc::Call(i.name.clone(), i.span)
            }
            ast::Proc::Guard { cond, kind, body, .. } => {
                let scope =
                    Scope { flavour: Flavour::Process, agent: Some(ty), locals: None, assigned: None, quants: &[] };
                let c = self.bexpr(cond, &scope);
                let b = self.proc(body, ty, names);
                Proc::Guard { cond: c?, kind: kind.clone(), body: Box::new(b?) }
            }
            ast::Proc::Action(a) => {
                let scope =
                    Scope { flavour: Flavour::Process, agent: Some(ty), locals: None, assigned: None, quants: &[] };
                let assign = self.assign(a, &scope)?;
                Proc::Action(Action { kind: ActionKind::Assign(assign), span: a.span })
            }
            ast::Proc::Block(stmts, span) => Proc::Action(Action { kind: self.block(stmts, ty)?, span: *span }),
        })
    }

    fn assign(&mut self, a: &ast::Action, scope: &Scope) -> Option<Assign> {
        let mut targets = vec![];
        let mut ok = true;
        for l in &a.lhs {
            match self.target(l, a.op, scope) {
                Some(t) => targets.push(t),
                None => ok = false,
            }
        }
        // The same variable twice on one left-hand side (unless the indices may differ).
        for i in 0..targets.len() {
            for j in 0..i {
                let (x, y) = (&targets[i], &targets[j]);
                if x.var == y.var && x.indices == y.indices && x.indices.iter().all(|e| matches!(e, Expr::Const(_))) {
                    self.error(a.lhs[i].span, format!("`{}` is assigned twice in one assignment", a.lhs[i].name.name));
                    ok = false;
                }
            }
        }
        let values: Vec<Option<Expr>> = a.rhs.iter().map(|e| self.expr(e, scope)).collect();
        let values: Option<Vec<Expr>> = values.into_iter().collect();
        if !ok {
            return None;
        }
        Some(Assign { targets, values: values? })
    }

    fn target(&mut self, l: &ast::Lhs, op: AssignOp, scope: &Scope) -> Option<Target> {
        if scope.locals.is_some_and(|m| m.contains_key(&l.name.name)) {
            self.diags.push(Diagnostic::error(
                l.name.span,
                format!("`{}` is a block local: assign it with `:=`", l.name.name),
            ));
            return None;
        }
        let var = self.lookup_var(&l.name, scope, false)?;
        let store = self.vars[var].store;
        let (want, what) = match store {
            Store::Env => (AssignOp::Env, "an environment variable"),
            Store::Attr => (AssignOp::Attr, "an attribute"),
            Store::Stig { .. } => (AssignOp::Stig, "a stigmergic variable"),
        };
        if op != want {
            self.diags.push(
                Diagnostic::error(
                    l.name.span,
                    format!("`{}` is {what}: it cannot be assigned with `{}`", l.name.name, op.as_str()),
                )
                .with_hint(format!("use `{}`", want.as_str())),
            );
            return None;
        }
        let indices = self.indices(var, &l.indices, l.span, scope)?;
        Some(Target { var, indices })
    }

    fn block(&mut self, stmts: &[ast::Stmt], ty: TypeId) -> Option<ActionKind> {
        // Locals: the `:=` and `pick` targets of any statement of the block.
        let mut locals: HashMap<String, (usize, usize)> = HashMap::new();
        let mut next = 0;
        let mut declare = |name: &str, len: usize, r: &mut Self, span: Span| match locals.get(name) {
            Some(&(_, l)) if l != len => {
                r.error(span, format!("local `{name}` is used both as a scalar and as a `pick` array"))
            }
            Some(_) => {}
            None => {
                locals.insert(name.to_string(), (next, len));
                next += len;
            }
        };
        for s in stmts {
            match s {
                ast::Stmt::Local { lhs, .. } => {
                    for l in lhs {
                        if !l.indices.is_empty() {
                            self.error(l.span, "a block local cannot be indexed on the left of `:=`");
                        }
                        declare(&l.name.name, 1, self, l.span);
                    }
                }
                ast::Stmt::Quant { name, .. } | ast::Stmt::Count { name, .. } => {
                    declare(&name.name, 1, self, name.span)
                }
                ast::Stmt::Pick { name, count, span, .. } => {
                    if let Some(k) = self.const_eval(count, None, "a `pick` count") {
                        if k < 1 {
                            self.error(count.span(), "`pick` must pick at least one agent");
                        } else {
                            declare(&name.name, k as usize, self, *span);
                        }
                    }
                }
                ast::Stmt::Assign(_) => {}
            }
        }
        let mut assigned = BTreeSet::new();
        let mut out = vec![];
        let mut ok = true;
        for s in stmts {
            let scope = Scope {
                flavour: Flavour::Process,
                agent: Some(ty),
                locals: Some(&locals),
                assigned: Some(&assigned),
                quants: &[],
            };
            let stmt = match s {
                ast::Stmt::Assign(a) => self.assign(a, &scope).map(Stmt::Assign),
                ast::Stmt::Local { lhs, rhs, .. } => {
                    let values: Vec<Option<Expr>> = rhs.iter().map(|e| self.expr(e, &scope)).collect();
                    let values: Option<Vec<Expr>> = values.into_iter().collect();
                    let slots = lhs
                        .iter()
                        .filter_map(|l| {
                            locals.get(&l.name.name).map(|&(slot, len)| LocalTarget { slot, len, index: None })
                        })
                        .collect();
                    values.map(|values| Stmt::Local { slots, values })
                }
                ast::Stmt::Pick { name, agent, filter, .. } => {
                    let Some(&(slot, count)) = locals.get(&name.name) else {
                        ok = false;
                        continue;
                    };
                    let agent_type = match agent {
                        None => None,
                        Some(a) => match self.types.iter().position(|t| t.name == a.name) {
                            Some(t) => Some(t),
                            None => {
                                self.error(a.span, format!("agent type `{}` is not spawned", a.name));
                                ok = false;
                                continue;
                            }
                        },
                    };
                    let fscope =
                        Scope { flavour: Flavour::Link, agent: Some(ty), locals: None, assigned: None, quants: &[] };
                    let filter = match filter {
                        Some(f) => match self.bexpr(f, &fscope) {
                            Some(b) => Some(b),
                            None => {
                                ok = false;
                                continue;
                            }
                        },
                        None => None,
                    };
                    Some(Stmt::Pick { slot, count, agent_type, filter })
                }
                ast::Stmt::Quant { name, quants, pred, .. } => {
                    let slot = locals[&name.name].0;
                    self.quants(quants, &[]).and_then(|qs| {
                        let names: Vec<(String, TypeId)> = qs.iter().map(|(n, t, _)| (n.clone(), *t)).collect();
                        let qscope = Scope { quants: &names, ..scope };
                        let body = self.bexpr(pred, &qscope)?;
                        Some(Stmt::Quant {
                            slot,
                            pred: QPred { quants: qs.iter().map(|(_, t, k)| (*k, *t)).collect(), body },
                        })
                    })
                }
                ast::Stmt::Count { name, agent, var, pred, .. } => {
                    let slot = locals[&name.name].0;
                    let q = ast::Quantifier { kind: ast::QuantKind::Exists, agent: agent.clone(), var: var.clone() };
                    self.quants(std::slice::from_ref(&q), &[]).and_then(|qs| {
                        let names = vec![(qs[0].0.clone(), qs[0].1)];
                        let qscope = Scope { quants: &names, ..scope };
                        let body = self.bexpr(pred, &qscope)?;
                        Some(Stmt::Count { slot, agent_type: qs[0].1, pred: body })
                    })
                }
            };
            match stmt {
                Some(st) => out.push(st),
                None => ok = false,
            }
            match s {
                ast::Stmt::Local { lhs, .. } => assigned.extend(lhs.iter().map(|l| l.name.name.clone())),
                ast::Stmt::Quant { name, .. } | ast::Stmt::Count { name, .. } | ast::Stmt::Pick { name, .. } => {
                    assigned.insert(name.name.clone());
                }
                ast::Stmt::Assign(_) => {}
            }
        }
        ok.then_some(ActionKind::Block { stmts: out, locals: next })
    }
}

fn dummy() -> QPred {
    QPred { quants: vec![], body: BExpr::Const(false) }
}

/// Why an expression of the syntax tree has no constant value.
#[derive(Debug)]
enum NotConst {
    /// An extern without a value (reported where the externs are checked).
    UnknownExtern,
    Arith(arith::ArithError, Span),
    /// A bare `id` where no agent is given.
    Id(Span),
    NotConstant(Span),
}

/// The one constant folder of the syntax tree: numbers, externs, the arithmetic of
/// `model::arith` (overflow and division by zero are errors) and a bare `id` when `id` gives
/// its value.
fn const_value(e: &ast::Expr, externs: &BTreeMap<String, i64>, id: Option<i64>) -> Result<i64, NotConst> {
    let fold = |a: &ast::Expr| const_value(a, externs, id);
    match e {
        ast::Expr::Int(v, _) => Ok(*v),
        ast::Expr::Extern(i) => externs.get(&i.name).copied().ok_or(NotConst::UnknownExtern),
        ast::Expr::Paren(a, _) => fold(a),
        ast::Expr::Neg(a, s) => arith::neg(fold(a)?).map_err(|err| NotConst::Arith(err, *s)),
        ast::Expr::Abs(a, s) => arith::abs(fold(a)?).map_err(|err| NotConst::Arith(err, *s)),
        ast::Expr::Bin(op, a, b, s) => {
            let x = fold(a)?;
            arith::binary(*op, x, fold(b)?).map_err(|err| NotConst::Arith(err, *s))
        }
        ast::Expr::MinMax(m, a, b, _) => {
            let (x, y) = (fold(a)?, fold(b)?);
            Ok(if *m == ast::MinMax::Min { x.min(y) } else { x.max(y) })
        }
        ast::Expr::Id { owner: None, span } => id.ok_or(NotConst::Id(*span)),
        other => Err(NotConst::NotConstant(other.span())),
    }
}

/// Stigmergies whose variables a process reads or writes in the agent's own copy.
fn collect_own_stig(p: &Proc, vars: &[Variable], out: &mut BTreeMap<usize, Span>, span: Span) {
    let mut note_expr = |e: &Expr, out: &mut BTreeMap<usize, Span>| {
        e.walk(&mut |x| {
            if let Expr::Var(VarRef { var, owner: AgentRef::Own, .. }) = x
                && let Store::Stig { stigmergy, .. } = vars[*var].store
            {
                out.entry(stigmergy).or_insert(span);
            }
        })
    };
    let note_assign =
        |a: &Assign, out: &mut BTreeMap<usize, Span>, note_expr: &mut dyn FnMut(&Expr, &mut BTreeMap<usize, Span>)| {
            for t in &a.targets {
                if let Store::Stig { stigmergy, .. } = vars[t.var].store {
                    out.entry(stigmergy).or_insert(span);
                }
                t.indices.iter().for_each(|e| note_expr(e, out));
            }
            a.values.iter().for_each(|e| note_expr(e, out));
        };
    match p {
        Proc::Par(v) | Proc::Choice(v) | Proc::Seq(v) => v.iter().for_each(|x| collect_own_stig(x, vars, out, span)),
        Proc::Guard { cond, body, .. } => {
            cond.walk_exprs(&mut |x| note_expr(x, out));
            collect_own_stig(body, vars, out, span);
        }
        Proc::Skip | Proc::Nil | Proc::Call(..) => {}
        Proc::Action(a) => match &a.kind {
            ActionKind::Assign(asg) => note_assign(asg, out, &mut note_expr),
            ActionKind::Block { stmts, .. } => {
                for s in stmts {
                    match s {
                        Stmt::Assign(asg) => note_assign(asg, out, &mut note_expr),
                        Stmt::Local { values, .. } => values.iter().for_each(|e| note_expr(e, out)),
                        Stmt::Quant { pred, .. } => pred.body.walk_exprs(&mut |x| note_expr(x, out)),
                        Stmt::Count { pred, .. } => pred.walk_exprs(&mut |x| note_expr(x, out)),
                        Stmt::Pick { .. } => {}
                    }
                }
            }
        },
    }
}
