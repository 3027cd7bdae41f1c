//! The network of an LNT process instance, as the interpreter explores it: a static tree of
//! `par`/`hide` over sequential leaves, each leaf a compiled process with its gates and
//! arguments, its expressions and the program's functions compiled once (`code.rs`).

use super::ast::*;
use super::code::{FuncCode, NodeCode, node_codes};
use super::eval::{Env, Ev};
use super::sem::*;
use crate::diagnostics::Located;
use std::collections::HashMap;
use std::sync::Arc;

type R<T> = Result<T, Located>;

pub(crate) struct LeafDef {
    pub(crate) proc: Arc<CProc>,
    /// Each control node's expressions compiled (`code.rs`), by index as `proc.nodes`.
    pub(crate) code: Arc<[NodeCode]>,
    /// Local gate index to global gate id.
    pub(crate) gmap: Vec<u32>,
    pub(crate) args: Vec<Value>,
    /// Text of the instance, e.g. `Agent_Node [...] (0)`.
    pub(crate) name: String,
}

#[derive(Clone, Debug)]
pub enum TNode {
    Leaf(usize),
    Par { global: Vec<u32>, iface: Vec<Option<Vec<u32>>>, kids: Vec<TNode> },
    Hide(Vec<u32>, Box<TNode>),
}

pub struct Net {
    pub(crate) gate_names: Vec<String>,
    pub(crate) leaves: Vec<LeafDef>,
    pub tree: TNode,
    /// The program's functions compiled (`code.rs`), by index as the program's.
    pub(crate) fcode: Vec<FuncCode>,
}

fn is_structural(s: &Stmt) -> bool {
    matches!(s.k, StmtK::Hide(..) | StmtK::Par(..) | StmtK::Call(..))
}

struct Builder<'a> {
    p: &'a Program,
    gate_names: Vec<String>,
    leaves: Vec<LeafDef>,
    cache: HashMap<usize, (Arc<CProc>, Arc<[NodeCode]>)>,
    depth: u32,
}

impl Builder<'_> {
    fn instantiate(&mut self, pi: usize, gates: Vec<u32>, args: Vec<Value>, pos: Span) -> R<TNode> {
        let p = self.p;
        let pr = &p.module.procs[pi];
        if gates.len() != pr.gates.len() {
            return Err(Located::new(
                pos,
                format!("process `{}` has {} gates, {} given", pr.name, pr.gates.len(), gates.len()),
            ));
        }
        if args.len() != pr.params.len() {
            return Err(Located::new(
                pos,
                format!("process `{}` has {} parameters, {} given", pr.name, pr.params.len(), args.len()),
            ));
        }
        self.depth += 1;
        if self.depth > 64 {
            return Err(Located::new(pos, "process network too deep (recursive instantiation?)"));
        }
        let r = if is_structural(&pr.body) {
            let gscope: HashMap<String, u32> = pr.gates.iter().map(|g| g.0.clone()).zip(gates).collect();
            let mut sc = Scope::default();
            sc.frames.push(HashMap::new());
            for prm in &pr.params {
                sc.declare(&prm.name, ty_of(p, &prm.ty, prm.pos)?);
            }
            let env: Env = args.into_iter().map(Some).collect();
            self.beh(&pr.body, &gscope, &sc, &env)
        } else {
            let (cp, code) = match self.cache.get(&pi) {
                Some(c) => c.clone(),
                None => {
                    let c = Arc::new(compile_proc(p, pi)?);
                    let code: Arc<[NodeCode]> = node_codes(&c.nodes).into();
                    self.cache.insert(pi, (c.clone(), code.clone()));
                    (c, code)
                }
            };
            let gn: Vec<String> = gates.iter().map(|g| self.gate_names[*g as usize].clone()).collect();
            let an: Vec<String> = args.iter().map(|v| fmt_value(p, v)).collect();
            let name = format!("{} [{}] ({})", pr.name, gn.join(", "), an.join(", "));
            self.leaves.push(LeafDef { proc: cp, code, gmap: gates, args, name });
            Ok(TNode::Leaf(self.leaves.len() - 1))
        };
        self.depth -= 1;
        r
    }

    fn gates(&self, gs: &[(String, Span)], scope: &HashMap<String, u32>) -> R<Vec<u32>> {
        gs.iter()
            .map(|(g, pos)| scope.get(g).copied().ok_or_else(|| Located::new(*pos, format!("undeclared gate `{g}`"))))
            .collect()
    }

    fn beh(&mut self, s: &Stmt, gscope: &HashMap<String, u32>, sc: &Scope, env: &Env) -> R<TNode> {
        match &s.k {
            StmtK::Hide(gs, b) => {
                let mut scope = gscope.clone();
                let mut ids = vec![];
                for (g, _) in gs {
                    let id = self.gate_names.len() as u32;
                    self.gate_names.push(g.to_ascii_uppercase());
                    scope.insert(g.clone(), id);
                    ids.push(id);
                }
                Ok(TNode::Hide(ids, Box::new(self.beh(b, &scope, sc, env)?)))
            }
            StmtK::Par(global, bs) => {
                let global = self.gates(global, gscope)?;
                let mut iface = vec![];
                let mut kids = vec![];
                for b in bs {
                    match b {
                        ParBranch::Plain(b) => {
                            iface.push(None);
                            kids.push(self.beh(b, gscope, sc, env)?);
                        }
                        ParBranch::Synced(gs, b) => {
                            iface.push(Some(self.gates(gs, gscope)?));
                            kids.push(self.beh(b, gscope, sc, env)?);
                        }
                    }
                }
                Ok(TNode::Par { global, iface, kids })
            }
            StmtK::Call(name, gs, args) => {
                let pi = *self
                    .p
                    .proc_ids
                    .get(name)
                    .ok_or_else(|| Located::new(s.pos, format!("undeclared process `{name}`")))?;
                let gates = self.gates(gs, gscope)?;
                let mut vals = vec![];
                let mut ev = Ev { p: self.p, depth: 0 };
                for a in args {
                    match a {
                        Arg::In(e) => vals.push(ev.eval(env, &compile_expr(self.p, sc, e)?)?),
                        Arg::Out(_, pos) | Arg::InOut(_, pos) => {
                            return Err(Located::new(*pos, "out parameters of processes are not part of the subset"));
                        }
                    }
                }
                self.instantiate(pi, gates, vals, s.pos)
            }
            _ => Err(Located::new(
                s.pos,
                "expected a process network (`hide`, `par` or a process call) mixing with sequential code",
            )),
        }
    }
}

pub(crate) fn fmt_value(p: &Program, v: &Value) -> String {
    match v {
        Value::I(i) => i.to_string(),
        Value::B(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        Value::E(c) => p.ctors[*c as usize].to_ascii_uppercase(),
        Value::A(xs) => format!("({})", xs.iter().map(|x| fmt_value(p, x)).collect::<Vec<_>>().join(", ")),
    }
}

/// Builds the network of process `root` (which must have no value parameters).
pub fn build_net(p: &Program, root: &str) -> R<Net> {
    let pi = *p.proc_ids.get(root).ok_or_else(|| {
        Located::new(Span::default(), format!("no process `{root}` (the roots it has: {})", roots(p).join(", ")))
    })?;
    let pr = &p.module.procs[pi];
    let mut b = Builder { p, gate_names: vec![], leaves: vec![], cache: HashMap::new(), depth: 0 };
    let gates: Vec<u32> = pr
        .gates
        .iter()
        .map(|(g, _)| {
            b.gate_names.push(g.to_ascii_uppercase());
            (b.gate_names.len() - 1) as u32
        })
        .collect();
    if !pr.params.is_empty() {
        return Err(Located::new(pr.pos, format!("the root process `{root}` must not have parameters")));
    }
    let tree = b.instantiate(pi, gates, vec![], pr.pos)?;
    Ok(Net { gate_names: b.gate_names, leaves: b.leaves, tree, fcode: func_codes(p) })
}

/// The processes that can be generated as the root of an LTS (`labs lts --root`, `lnt.open
/// -root`): those without value parameters, in the order declared.
pub(crate) fn roots(p: &Program) -> Vec<&str> {
    p.module.procs.iter().filter(|pr| pr.params.is_empty()).map(|pr| pr.name.as_str()).collect()
}

/// The program's functions compiled once for the successor function.
fn func_codes(p: &Program) -> Vec<FuncCode> {
    p.funcs.iter().map(super::code::func_code).collect()
}

/// Builds the network of one process instance `proc [gates] (args)`, as a leaf of an SVL
/// composition names it: the process's gates are bound to the gates named `gates`.
pub(crate) fn build_call(p: &Program, proc_name: &str, gates: &[String], args: Vec<Value>) -> R<Net> {
    let pi =
        *p.proc_ids.get(proc_name).ok_or_else(|| Located::new(Span::default(), format!("no process `{proc_name}`")))?;
    let mut b = Builder { p, gate_names: vec![], leaves: vec![], cache: HashMap::new(), depth: 0 };
    let ids: Vec<u32> = gates
        .iter()
        .map(|g| {
            b.gate_names.push(g.to_ascii_uppercase());
            (b.gate_names.len() - 1) as u32
        })
        .collect();
    let tree = b.instantiate(pi, ids, args, p.module.procs[pi].pos)?;
    Ok(Net { gate_names: b.gate_names, leaves: b.leaves, tree, fcode: func_codes(p) })
}

impl Net {
    /// The network made of leaf `k` alone (every gate visible).
    pub(crate) fn single_leaf(&self, k: usize) -> Net {
        let l = &self.leaves[k];
        Net {
            gate_names: self.gate_names.clone(),
            leaves: vec![LeafDef {
                proc: l.proc.clone(),
                code: l.code.clone(),
                gmap: l.gmap.clone(),
                args: l.args.clone(),
                name: l.name.clone(),
            }],
            tree: TNode::Leaf(0),
            fcode: self.fcode.clone(),
        }
    }
}
