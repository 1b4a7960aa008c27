//! Struct variables a launch passes by value (`Params p{2.f, 1.f, n}; k<<<g, b>>>(p, x, y);`):
//! the values the host code gives their members, so that a kernel reading `p.n` is predicted
//! for the launch's `n`.
//!
//! A member's value comes from the variable's brace initializer, by position (`{a, b, n}`) or
//! by designator (`{.n = n}`), or from one assignment (`p.n = n;`). Anything that could change
//! it leaves it out, never guessed: a variable declared twice (two functions, two scopes),
//! assigned as a whole after its initializer, or whose address is taken (`&p`, which a call may
//! write through); a member given twice or stepped (`p.n += 1`, `p.n++`).

use crate::param_fields::SourceField;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Which member an initializer or assignment gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Member {
    /// The n-th item of a brace initializer.
    Position(usize),
    /// A designated initializer (`.n = …`) or an assignment (`p.n = …`).
    Name(String),
}

/// What the host code does to the members of one struct variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StructVar {
    /// The type its brace initializer declares it with (`Params`).
    pub ty: Option<String>,
    /// Members given a value, as value text, in the order of the code.
    pub given: Vec<(Member, String)>,
    /// Members changed other than by one plain assignment (`+=`, `++`).
    pub stepped: Vec<String>,
}

/// The struct variables of a file by name: declared at most once, never reassigned as a whole,
/// never passed by address.
pub type StructInits = BTreeMap<String, StructVar>;

static BRACE_INIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Za-z_][\w:]*)\s+([A-Za-z_]\w*)\s*(=\s*)?\{([^{};]*)\}\s*;").unwrap()
});
static MEMBER_SET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Za-z_]\w*)\s*\.\s*([A-Za-z_]\w*)\s*((?:[-+*/%&|^]|<<|>>)?=)([^=;][^;]*);")
        .unwrap()
});
static MEMBER_STEP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Za-z_]\w*)\s*\.\s*([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)\s*\.\s*([A-Za-z_]\w*)").unwrap()
});

/// The struct variables of `code` (comments and strings blanked) whose members a launch can read.
pub fn struct_inits(code: &str) -> StructInits {
    let mut declared: BTreeMap<String, usize> = BTreeMap::new();
    let mut out: StructInits = BTreeMap::new();
    for c in BRACE_INIT.captures_iter(code) {
        if matches!(&c[1], "dim3" | "return" | "else" | "case" | "goto") {
            continue;
        }
        let var = c[2].to_string();
        *declared.entry(var.clone()).or_default() += 1;
        let v = out.entry(var).or_default();
        v.ty = Some(c[1].to_string());
        let given = &mut v.given;
        for (k, item) in crate::workload::split_top(&c[4]).iter().enumerate() {
            if item.is_empty() {
                continue;
            }
            match item.strip_prefix('.').and_then(|r| r.split_once('=')) {
                Some((name, value)) => {
                    given.push((Member::Name(name.trim().to_string()), value.trim().into()))
                }
                None => given.push((Member::Position(k), item.clone())),
            }
        }
    }
    for c in MEMBER_SET.captures_iter(code) {
        if member_of_another(code, c.get(0).map_or(0, |m| m.start())) {
            continue;
        }
        let v = out.entry(c[1].to_string()).or_default();
        if &c[3] == "=" {
            v.given
                .push((Member::Name(c[2].to_string()), c[4].trim().to_string()));
        } else {
            v.stepped.push(c[2].to_string());
        }
    }
    for c in MEMBER_STEP.captures_iter(code) {
        let var = c.get(1).or(c.get(3)).map_or("", |m| m.as_str());
        let member = c.get(2).or(c.get(4)).map_or("", |m| m.as_str());
        out.entry(var.to_string())
            .or_default()
            .stepped
            .push(member.to_string());
    }
    out.retain(|var, v| {
        !v.given.is_empty() && declared.get(var).copied().unwrap_or(0) <= 1 && kept_whole(code, var)
    });
    out
}

/// Whether the match at `at` is a member of a member (`q.p.n = …`) or of a pointer (`q->p.n`).
pub(super) fn member_of_another(code: &str, at: usize) -> bool {
    let before = code[..at].trim_end();
    before.ends_with('.') || before.ends_with("->")
}

/// Whether `var` is never assigned as a whole after its declaration and never has its address
/// taken.
fn kept_whole(code: &str, var: &str) -> bool {
    let v = regex::escape(var);
    let whole =
        crate::launch_sites::c_text::cached_regex(&format!(r"\b{v}\s*(?:[-+*/%&|^]|<<|>>)?=[^=]"))
            .unwrap();
    let assigns = whole
        .find_iter(code)
        .filter(|m| !member_of_another(code, m.start()))
        // `S v = {…}` is the declaration itself
        .filter(|m| !code[m.end() - 1..].trim_start().starts_with('{'))
        .count();
    let address =
        crate::launch_sites::c_text::cached_regex(&format!(r"&\s*{v}\b\s*[^.\s]")).unwrap();
    assigns == 0 && !address.is_match(code)
}

/// The members of the host struct variable `name` that the code fixes, as (`cfg.n`, value
/// text), for expressions that read them (`k<<<cfg.n / 256, 256>>>`). Positions are matched to
/// the fields of its type's definition in `text`; without it, only named members count.
pub fn member_values(name: &str, var: &StructVar, text: &str) -> Vec<(String, String)> {
    let laid_out = var.ty.as_ref().map_or_else(Vec::new, |ty| {
        crate::param_fields::source_fields(text, &[(ty.clone(), name.to_string())])
    });
    if !laid_out.is_empty() {
        return field_values(var, 0, &laid_out);
    }
    let named = StructVar {
        given: var
            .given
            .iter()
            .filter(|(m, _)| matches!(m, Member::Name(_)))
            .cloned()
            .collect(),
        ..var.clone()
    };
    // stand-in fields, one per member name, for field_values' checks
    let mut names: Vec<&String> = named
        .given
        .iter()
        .filter_map(|(m, _)| match m {
            Member::Name(n) => Some(n),
            Member::Position(_) => None,
        })
        .collect();
    names.dedup();
    let fields: Vec<SourceField> = names
        .iter()
        .enumerate()
        .map(|(k, n)| SourceField {
            name: format!("{name}.{n}"),
            param: 0,
            offset: k as u64,
        })
        .collect();
    field_values(&named, 0, &fields)
}

/// The fields of the kernel parameter at position `param` that `var` fills, as (the field's
/// source name, `p.n`, and the value text). A positional initializer is matched to the fields
/// in order only when the struct is flat (no nested struct), as C fills it. A field given twice
/// (initialized and assigned) or stepped is left out.
pub fn field_values(
    var: &StructVar,
    param: usize,
    fields: &[SourceField],
) -> Vec<(String, String)> {
    let mut own: Vec<&SourceField> = fields.iter().filter(|f| f.param == param).collect();
    own.sort_by_key(|f| f.offset);
    let member_of = |f: &SourceField| f.name.split_once('.').map(|(_, m)| m.to_string());
    let flat = own
        .iter()
        .all(|f| member_of(f).is_some_and(|m| !m.contains('.')));
    let filled: Vec<(&SourceField, &String)> = var
        .given
        .iter()
        .filter_map(|(m, value)| {
            let field = match m {
                Member::Position(k) if flat => own.get(*k).copied(),
                Member::Position(_) => None,
                Member::Name(n) => own
                    .iter()
                    .copied()
                    .find(|f| member_of(f).as_deref() == Some(n)),
            }?;
            Some((field, value))
        })
        .collect();
    filled
        .iter()
        .filter(|(f, _)| {
            let once = filled.iter().filter(|(o, _)| o.offset == f.offset).count() == 1;
            once && !member_of(f).is_some_and(|m| var.stepped.contains(&m))
        })
        .map(|(f, v)| (f.name.clone(), v.to_string()))
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Fields of parameter 0, four bytes each, in order.
    pub fn fields(names: &[&str]) -> Vec<SourceField> {
        names
            .iter()
            .enumerate()
            .map(|(k, n)| SourceField {
                name: n.to_string(),
                param: 0,
                offset: 4 * k as u64,
            })
            .collect()
    }

    #[test]
    fn positional_designated_and_assigned_members_are_read() {
        let code = "Params p{2.f, 1.f, n};\nS s = {.m = 64, .n = n};\nT t; t.n = 8 * n;\n";
        let inits = struct_inits(code);
        let f = fields(&["p.a", "p.b", "p.n"]);
        assert_eq!(
            field_values(&inits["p"], 0, &f),
            [
                ("p.a".to_string(), "2.f".to_string()),
                ("p.b".into(), "1.f".into()),
                ("p.n".into(), "n".into())
            ]
        );
        let f = fields(&["q.n", "q.m"]);
        assert_eq!(
            field_values(&inits["s"], 0, &f),
            [
                ("q.m".to_string(), "64".to_string()),
                ("q.n".into(), "n".into())
            ]
        );
        assert_eq!(
            field_values(&inits["t"], 0, &f),
            [("q.n".to_string(), "8 * n".to_string())]
        );
    }

    #[test]
    fn a_member_that_may_change_is_left_out() {
        let code = "S a{1, 2}; a.n += 1;\nS b{1, 2}; b.m = 3;\nS c{1, 2};\nS c{3, 4};\n\
                    S d{1, 2}; d = other;\nS e{1, 2}; init(&e);\nS g{5, 6}; g.n++;\n";
        let inits = struct_inits(code);
        let f = fields(&["s.m", "s.n"]);
        let names = |var: &str| -> Vec<String> {
            field_values(&inits[var], 0, &f)
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        // stepped, or initialized and assigned: only the other member is read
        assert_eq!(names("a"), ["s.m"]);
        assert_eq!(names("b"), ["s.n"]);
        assert_eq!(names("g"), ["s.m"]);
        // declared twice, reassigned as a whole, or passed by address: nothing is read
        for var in ["c", "d", "e"] {
            assert!(!inits.contains_key(var), "{var}: {:?}", inits.get(var));
        }
    }

    #[test]
    fn positions_fill_only_a_flat_struct() {
        let inits = struct_inits("Outer o{1, 2, 3};");
        let nested = fields(&["o.a", "o.in.x", "o.in.y"]);
        assert!(field_values(&inits["o"], 0, &nested).is_empty());
        let flat = fields(&["o.a", "o.b", "o.c"]);
        assert_eq!(field_values(&inits["o"], 0, &flat).len(), 3);
    }
}
