//! Recursive-descent parser over the token vector. Every instruction takes the one generic path
//! (guard, opcode, dotted suffixes split into modifiers and types, operands); directives the
//! analyses do not need structurally (`.section`, `.alias`, `.callprototype`) are kept as text so
//! nothing in the input is dropped and the printer can reproduce it.

use super::error::ParseError;
use super::ir::*;
use super::lexer::{Stream, Tok, Token};
use std::sync::Arc;

/// Parses a PTX module.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    let mut p = Parser {
        src,
        ts: Stream::new(src)?,
        cur_loc: None,
        depth: 0,
    };
    let r = p.module();
    // Parsing that stopped at an invalid token failed because of it: report the lexical error.
    if let Some(le) = p.ts.error.take() {
        if r.is_ok() || p.kind() == Tok::LexError {
            return Err(le);
        }
    }
    let mut m = r?;
    resolve_locs(&mut m);
    super::scopes::resolve_scopes(&mut m);
    super::scopes::resolve_bare_registers(&mut m);
    Ok(m)
}

struct Parser<'a> {
    src: &'a str,
    ts: Stream<'a>,
    /// (file, line, col) of the last `.loc` in the current function.
    cur_loc: Option<(u32, u32, u32)>,
    /// Nesting of blocks, operands and initializers, bounded so hostile input cannot overflow
    /// the stack.
    depth: u32,
}

/// Deeper nesting than any compiler emits (call sequences nest one level).
const MAX_DEPTH: u32 = 64;

type R<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    #[inline]
    fn peek(&self) -> Token {
        self.ts.peek()
    }
    /// The token after the current one.
    #[inline]
    fn peek2(&self) -> Token {
        self.ts.peek2()
    }
    #[inline]
    fn kind(&self) -> Tok {
        self.ts.peek().kind
    }
    #[inline]
    fn bump(&mut self) -> Token {
        self.ts.bump()
    }
    #[inline]
    fn text(&self, t: Token) -> &'a str {
        &self.src[t.start as usize..t.end as usize]
    }
    fn err<T>(&self, t: Token, msg: impl Into<String>) -> R<T> {
        let mut span = t.span();
        if span.end == span.start {
            span.end = (span.start + 1).min(self.src.len());
            if span.end == span.start && span.start > 0 {
                span.start -= 1;
            }
        }
        Err(ParseError::new(msg, span))
    }
    fn describe(&self, t: Token) -> String {
        if t.kind == Tok::Eof {
            "end of input".to_string()
        } else if t.kind == Tok::LexError {
            "an invalid token".to_string()
        } else {
            format!("`{}`", self.text(t))
        }
    }
    fn expect(&mut self, k: Tok, what: &str) -> R<Token> {
        let t = self.peek();
        if t.kind == k {
            Ok(self.bump())
        } else {
            self.err(t, format!("expected {what}, found {}", self.describe(t)))
        }
    }
    fn eat(&mut self, k: Tok) -> bool {
        if self.kind() == k {
            self.bump();
            true
        } else {
            false
        }
    }
    fn dot_name(&self, t: Token) -> &'a str {
        &self.src[t.start as usize + 1..t.end as usize]
    }
    fn ident(&mut self, what: &str) -> R<String> {
        let t = self.expect(Tok::Ident, what)?;
        Ok(self.text(t).to_string())
    }
    fn uint(&mut self, what: &str) -> R<u64> {
        let t = self.peek();
        match t.kind {
            Tok::DecInt | Tok::HexInt | Tok::BinInt => {
                self.bump();
                match int_value(self.text(t), t.kind) {
                    Some(v) => Ok(v),
                    None => self.err(t, format!("integer literal out of range: {}", self.text(t))),
                }
            }
            _ => self.err(t, format!("expected {what}, found {}", self.describe(t))),
        }
    }
    fn u32(&mut self, what: &str) -> R<u32> {
        let t = self.peek();
        let v = self.uint(what)?;
        u32::try_from(v).or_else(|_| self.err(t, format!("{what} too large: {v}")))
    }
    fn signed(&mut self, what: &str) -> R<i64> {
        let neg = self.eat(Tok::Minus);
        let v = self.uint(what)? as i64;
        Ok(if neg { v.wrapping_neg() } else { v })
    }
    /// Text from byte `from` (the start of a token) to the end of the last consumed token, trimmed.
    fn raw_from(&self, from: u32) -> String {
        let e = self.ts.last.end;
        if e <= from {
            return String::new();
        }
        self.src[from as usize..e as usize].trim().to_string()
    }
    fn span_from(&self, first: Token) -> Span {
        first.span().to(self.ts.last.span())
    }

    // ---------------------------------------------------------------- module

    fn module(&mut self) -> R<Module> {
        let mut m = Module::default();
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => break,
                Tok::Dot => {
                    let name = self.dot_name(t);
                    match name {
                        "version" => {
                            self.bump();
                            let v = self.peek();
                            self.bump();
                            let s = self.text(v);
                            let parsed = match v.kind {
                                Tok::DecFloat => s.split_once('.').and_then(|(a, b)| {
                                    Some(Version {
                                        major: a.parse().ok()?,
                                        minor: b.parse().ok()?,
                                    })
                                }),
                                _ => None,
                            };
                            match parsed {
                                Some(v) => m.version = Some(v),
                                None => return self.err(v, "expected a version like 9.5"),
                            }
                        }
                        "target" => {
                            self.bump();
                            loop {
                                m.target.push(self.ident("a target name")?);
                                if !self.eat(Tok::Comma) {
                                    break;
                                }
                            }
                        }
                        "address_size" => {
                            self.bump();
                            m.address_size = Some(self.u32("an address size")?);
                        }
                        "file" => {
                            let f = self.file_decl()?;
                            m.order.push(ItemRef::File(m.files.len()));
                            m.files.push(f);
                        }
                        "section" => {
                            let d = self.section()?;
                            m.order.push(ItemRef::Directive(m.directives.len()));
                            m.directives.push(d);
                        }
                        "entry" | "func" | "visible" | "extern" | "weak" | "common" | "global"
                        | "const" | "shared" | "local" | "tex" => self.module_item(&mut m)?,
                        _ => {
                            let d = self.raw_directive()?;
                            m.order.push(ItemRef::Directive(m.directives.len()));
                            m.directives.push(d);
                        }
                    }
                }
                _ => {
                    return self.err(
                        t,
                        format!(
                            "expected a directive at module level, found {}",
                            self.describe(t)
                        ),
                    )
                }
            }
        }
        Ok(m)
    }

    fn file_decl(&mut self) -> R<FileDecl> {
        let first = self.bump();
        let index = self.u32("a file index")?;
        let s = self.expect(Tok::Str, "a quoted file name")?;
        let name = unquote(self.text(s));
        let extra = if self.kind() == Tok::Comma && self.peek().line == first.line {
            self.bump();
            let from = self.peek().start;
            while !matches!(self.kind(), Tok::Eof | Tok::LexError) && self.peek().line == first.line
            {
                self.bump();
            }
            Some(self.raw_from(from))
        } else {
            None
        };
        Ok(FileDecl {
            index,
            name,
            extra,
            span: self.span_from(first),
        })
    }

    fn section(&mut self) -> R<Directive> {
        let first = self.bump();
        let nt = self.expect(Tok::Dot, "a section name")?;
        let text = self.text(nt).to_string();
        let open = self.expect(Tok::LBrace, "`{`")?;
        let mut depth = 1;
        let inner_start = open.end as usize;
        loop {
            let t = self.bump();
            match t.kind {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        let inner = self.src[inner_start..t.start as usize].trim().to_string();
                        return Ok(Directive {
                            name: "section".into(),
                            text,
                            braced: Some(inner),
                            span: self.span_from(first),
                        });
                    }
                }
                Tok::Eof | Tok::LexError => return self.err(open, "unclosed `{` of .section"),
                _ => {}
            }
        }
    }

    /// `.name args… ;` kept as text.
    fn raw_directive(&mut self) -> R<Directive> {
        let first = self.bump();
        let name = self.dot_name(first).to_string();
        let from = self.peek().start;
        loop {
            match self.kind() {
                Tok::Semi => break,
                Tok::Eof | Tok::LexError => {
                    return self.err(first, format!("`.{name}` without a closing `;`"))
                }
                _ => {
                    self.bump();
                }
            }
        }
        let text = self.raw_from(from);
        self.bump();
        Ok(Directive {
            name,
            text,
            braced: None,
            span: self.span_from(first),
        })
    }

    fn module_item(&mut self, m: &mut Module) -> R<()> {
        let first = self.peek();
        let mut linkage = None;
        if let Some(l) = Linkage::from_name(self.dot_name(first)) {
            self.bump();
            linkage = Some(l);
        }
        let t = self.peek();
        if t.kind != Tok::Dot {
            return self.err(
                t,
                format!(
                    "expected .entry, .func or a state space, found {}",
                    self.describe(t)
                ),
            );
        }
        match self.dot_name(t) {
            "entry" | "func" => {
                let f = self.function(first, linkage)?;
                m.order.push(ItemRef::Function(m.functions.len()));
                m.functions.push(f);
            }
            _ => {
                for d in self.var_decls(first, linkage, true)? {
                    m.order.push(ItemRef::Global(m.globals.len()));
                    m.globals.push(d);
                }
                self.expect(Tok::Semi, "`;` after a declaration")?;
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- declarations

    /// `.space {attrs} .type name[<N>][dims][= init] {, name …}` (without the `;`).
    fn var_decls(
        &mut self,
        first: Token,
        linkage: Option<Linkage>,
        multi: bool,
    ) -> R<Vec<VarDecl>> {
        let st = self.expect(Tok::Dot, "a state space")?;
        let space = match StateSpace::from_name(self.dot_name(st)) {
            Some(s) => s,
            None => {
                return self.err(
                    st,
                    format!("expected a state space, found {}", self.describe(st)),
                )
            }
        };
        let mut align = None;
        let mut vector = None;
        let mut ty = None;
        let mut ptr: Option<PtrAttr> = None;
        let mut attribute: Option<String> = None;
        while self.kind() == Tok::Dot {
            let t = self.peek();
            let n = self.dot_name(t);
            self.bump();
            if n == "align" {
                let a = self.u32("an alignment")?;
                match ptr.as_mut() {
                    Some(p) => p.align = Some(a),
                    None => align = Some(a),
                }
            } else if n == "attribute" {
                self.expect(Tok::LParen, "`(` after .attribute")?;
                // `.managed`, or `.unified(uuid1, uuid2)` with parentheses of its own
                let (mut text, mut depth) = (String::new(), 0);
                while !(self.kind() == Tok::RParen && depth == 0) && self.kind() != Tok::Eof {
                    match self.kind() {
                        Tok::LParen => depth += 1,
                        Tok::RParen => depth -= 1,
                        _ => {}
                    }
                    text.push_str(self.text(self.peek()));
                    self.bump();
                }
                self.expect(Tok::RParen, "`)` closing .attribute")?;
                attribute = Some(text);
            } else if n == "ptr" {
                ptr = Some(PtrAttr {
                    space: None,
                    align: None,
                });
            } else if let (Some(p), Some(s)) = (ptr.as_mut(), StateSpace::from_name(n)) {
                p.space = Some(s);
            } else if let Some(v) = n.strip_prefix('v').and_then(|v| v.parse::<u32>().ok()) {
                vector = Some(v);
            } else if let Some(pt) = PtxType::from_name(n) {
                ty = Some(pt);
            } else {
                return self.err(t, format!("unexpected `{}` in a declaration", self.text(t)));
            }
        }
        let ty = match ty {
            Some(t) => t,
            None => return self.err(self.peek(), "declaration without a type"),
        };
        let mut out = Vec::new();
        loop {
            let name = self.ident("a name")?;
            let mut range = None;
            if self.eat(Tok::Lt) {
                range = Some(self.u32("a register count")?);
                self.expect(Tok::Gt, "`>`")?;
            }
            let mut array = Vec::new();
            while self.eat(Tok::LBracket) {
                if self.eat(Tok::RBracket) {
                    array.push(None);
                } else {
                    array.push(Some(self.uint("an array length")?));
                    self.expect(Tok::RBracket, "`]`")?;
                }
            }
            let init = if self.eat(Tok::Eq) {
                Some(self.initializer()?)
            } else {
                None
            };
            out.push(VarDecl {
                linkage,
                space,
                align,
                vector,
                ty,
                ptr: ptr.clone(),
                attribute: attribute.clone(),
                name,
                range,
                array,
                init,
                span: self.span_from(first),
            });
            if multi && self.kind() == Tok::Comma && self.peek2().kind == Tok::Ident {
                self.bump();
                continue;
            }
            break;
        }
        Ok(out)
    }

    fn initializer(&mut self) -> R<Initializer> {
        if self.depth >= MAX_DEPTH {
            let t = self.peek();
            return self.err(t, "nesting too deep");
        }
        self.depth += 1;
        let r = self.initializer_inner();
        self.depth -= 1;
        r
    }

    fn initializer_inner(&mut self) -> R<Initializer> {
        if self.eat(Tok::LBrace) {
            let mut items = Vec::new();
            if !self.eat(Tok::RBrace) {
                loop {
                    items.push(self.initializer()?);
                    if self.eat(Tok::RBrace) {
                        break;
                    }
                    self.expect(Tok::Comma, "`,` or `}` in an initializer")?;
                }
            }
            return Ok(Initializer::List(items));
        }
        let t = self.peek();
        if t.kind == Tok::Ident && self.text(t) == "generic" && self.peek2().kind == Tok::LParen {
            self.bump();
            self.bump();
            let n = self.ident("a symbol")?;
            self.expect(Tok::RParen, "`)`")?;
            return Ok(Initializer::Generic(n));
        }
        Ok(Initializer::Value(self.operand(false)?))
    }

    // ---------------------------------------------------------------- functions

    fn function(&mut self, first: Token, linkage: Option<Linkage>) -> R<Function> {
        let kw = self.bump();
        let is_entry = self.dot_name(kw) == "entry";
        let mut ret_params = Vec::new();
        if !is_entry && self.kind() == Tok::LParen {
            ret_params = self.param_list()?;
        }
        let name = self.ident("a function name")?;
        let params = if self.kind() == Tok::LParen {
            self.param_list()?
        } else {
            Vec::new()
        };
        let mut perf = Vec::new();
        while self.kind() == Tok::Dot {
            let t = self.bump();
            let pname = self.dot_name(t).to_string();
            let mut values = Vec::new();
            let mut strings = Vec::new();
            loop {
                match self.kind() {
                    Tok::DecInt | Tok::HexInt | Tok::BinInt => values.push(self.uint("a number")?),
                    Tok::Str => {
                        let s = self.bump();
                        strings.push(unquote(self.text(s)));
                    }
                    _ => break,
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.eat(Tok::Semi);
            perf.push(PerfDirective {
                name: pname,
                values,
                strings,
                span: self.span_from(t),
            });
        }
        let mut f = Function {
            name,
            is_entry,
            linkage,
            ret_params,
            params,
            perf,
            is_declaration: false,
            body: Vec::new(),
            span: first.span(),
        };
        let t = self.peek();
        match t.kind {
            Tok::Semi => {
                self.bump();
                f.is_declaration = true;
            }
            Tok::LBrace => {
                self.bump();
                self.cur_loc = None;
                f.body = self.statements(t)?;
            }
            _ => {
                return self.err(
                    t,
                    format!(
                        "expected `{{` or `;` after the function header, found {}",
                        self.describe(t)
                    ),
                )
            }
        }
        f.span = self.span_from(first);
        Ok(f)
    }

    fn param_list(&mut self) -> R<Vec<VarDecl>> {
        self.expect(Tok::LParen, "`(`")?;
        let mut out = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(out);
        }
        loop {
            let first = self.peek();
            out.extend(self.var_decls(first, None, false)?);
            if self.eat(Tok::RParen) {
                return Ok(out);
            }
            self.expect(Tok::Comma, "`,` or `)` in a parameter list")?;
        }
    }

    /// Statements up to the `}` matching `open` (consumed).
    fn statements(&mut self, open: Token) -> R<Vec<Statement>> {
        if self.depth >= MAX_DEPTH {
            let t = self.peek();
            return self.err(t, "nesting too deep");
        }
        self.depth += 1;
        let r = self.statements_inner(open);
        self.depth -= 1;
        r
    }

    fn statements_inner(&mut self, open: Token) -> R<Vec<Statement>> {
        let mut body = Vec::new();
        loop {
            let t = self.peek();
            match t.kind {
                Tok::RBrace => {
                    self.bump();
                    return Ok(body);
                }
                Tok::Eof => return self.err(open, "unclosed `{`"),
                Tok::LBrace => {
                    self.bump();
                    let inner = self.statements(t)?;
                    body.push(Statement::Block(Block {
                        body: inner,
                        span: self.span_from(t),
                    }));
                }
                Tok::Ident if self.peek2().kind == Tok::Colon => {
                    self.bump();
                    self.bump();
                    body.push(Statement::Label(Label {
                        name: self.text(t).to_string(),
                        span: t.span(),
                    }));
                }
                Tok::Ident | Tok::At => body.push(Statement::Inst(self.inst()?)),
                Tok::Dot => match self.dot_name(t) {
                    "loc" => body.push(Statement::Loc(self.loc()?)),
                    "pragma" => {
                        self.bump();
                        let mut strings = Vec::new();
                        loop {
                            let s = self.expect(Tok::Str, "a quoted pragma")?;
                            strings.push(unquote(self.text(s)));
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                        self.expect(Tok::Semi, "`;`")?;
                        body.push(Statement::Pragma(Pragma {
                            strings,
                            span: self.span_from(t),
                        }));
                    }
                    n if StateSpace::from_name(n).is_some() => {
                        for d in self.var_decls(t, None, true)? {
                            body.push(Statement::Decl(d));
                        }
                        self.expect(Tok::Semi, "`;` after a declaration")?;
                    }
                    _ => body.push(Statement::Directive(self.raw_directive()?)),
                },
                _ => {
                    return self.err(
                        t,
                        format!(
                            "expected an instruction, label or directive, found {}",
                            self.describe(t)
                        ),
                    )
                }
            }
        }
    }

    fn loc(&mut self) -> R<Loc> {
        let first = self.bump();
        let file = self.u32("a file index")?;
        let line = self.u32("a line number")?;
        let col = self.u32("a column")?;
        let extra = if self.kind() == Tok::Comma && self.peek().line == first.line {
            self.bump();
            let from = self.peek().start;
            while !matches!(self.kind(), Tok::Eof | Tok::LexError) && self.peek().line == first.line
            {
                self.bump();
            }
            Some(self.raw_from(from))
        } else {
            None
        };
        self.cur_loc = Some((file, line, col));
        Ok(Loc {
            file,
            line,
            col,
            extra,
            span: self.span_from(first),
        })
    }

    // ---------------------------------------------------------------- instructions

    fn inst(&mut self) -> R<Inst> {
        let first = self.peek();
        let pred = if self.eat(Tok::At) {
            let negated = self.eat(Tok::Bang);
            let reg = self.ident("a predicate register")?;
            Some(Guard { negated, reg })
        } else {
            None
        };
        let op = self.expect(Tok::Ident, "an opcode")?;
        let opcode = self.text(op).to_string();
        let mut modifiers = Vec::new();
        let mut types = Vec::new();
        let mut type_pos = None;
        let mut prev_end = op.end;
        while self.kind() == Tok::Dot && self.peek().start == prev_end {
            let t = self.bump();
            prev_end = t.end;
            let n = self.dot_name(t);
            match PtxType::from_name(n) {
                // Types form one run; a type after a modifier that follows the run stays a modifier.
                Some(ty) if type_pos.is_none() || type_pos == Some(modifiers.len()) => {
                    type_pos.get_or_insert(modifiers.len());
                    types.push(ty);
                }
                _ => modifiers.push(n.to_string()),
            }
        }
        let type_pos = type_pos.unwrap_or(modifiers.len());
        let is_branch = matches!(opcode.as_str(), "bra" | "brx");
        let mut operands = Vec::new();
        if !self.eat(Tok::Semi) {
            loop {
                operands.push(self.operand(is_branch)?);
                if self.eat(Tok::Semi) {
                    break;
                }
                let t = self.peek();
                if t.kind != Tok::Comma {
                    return self.err(
                        t,
                        format!(
                            "expected `,` or `;` after an operand, found {}",
                            self.describe(t)
                        ),
                    );
                }
                self.bump();
            }
        }
        Ok(Inst {
            pred,
            opcode,
            modifiers,
            types,
            type_pos,
            operands,
            span: self.span_from(first),
            loc: self.cur_loc.map(|(file_index, line, col)| SourceLoc {
                file_index,
                file_name: None,
                line,
                col,
            }),
        })
    }

    fn operand_list(&mut self, close: Tok, what: &str) -> R<Vec<Operand>> {
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.operand(false)?);
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(Tok::Comma, what)?;
        }
    }

    fn operand(&mut self, label: bool) -> R<Operand> {
        if self.depth >= MAX_DEPTH {
            let t = self.peek();
            return self.err(t, "nesting too deep");
        }
        self.depth += 1;
        let r = self.operand_inner(label);
        self.depth -= 1;
        r
    }

    fn operand_inner(&mut self, label: bool) -> R<Operand> {
        let t = self.peek();
        let op = match t.kind {
            Tok::LBrace => {
                self.bump();
                Operand::Vector(self.operand_list(Tok::RBrace, "`,` or `}` in a vector")?)
            }
            Tok::LParen => {
                self.bump();
                Operand::List(self.operand_list(Tok::RParen, "`,` or `)` in a list")?)
            }
            Tok::LBracket => {
                self.bump();
                self.address()?
            }
            Tok::Bang => {
                self.bump();
                Operand::Not(Box::new(self.operand(false)?))
            }
            Tok::Minus => {
                self.bump();
                let n = self.peek();
                match n.kind {
                    Tok::DecFloat => {
                        self.bump();
                        let v: f64 = self.text(n).parse().or_else(|_| self.err(n, "bad float"))?;
                        if !v.is_finite() {
                            return self.err(n, "floating-point literal out of range");
                        }
                        Operand::ImmFloat((-v).to_bits())
                    }
                    _ => Operand::Imm((self.uint("a number")? as i64).wrapping_neg()),
                }
            }
            Tok::DecInt | Tok::HexInt | Tok::BinInt => Operand::Imm(self.uint("a number")? as i64),
            Tok::F32Hex => {
                self.bump();
                Operand::ImmF32(u32::from_str_radix(&self.text(t)[2..], 16).unwrap_or(0))
            }
            Tok::F64Hex => {
                self.bump();
                Operand::ImmF64(u64::from_str_radix(&self.text(t)[2..], 16).unwrap_or(0))
            }
            Tok::DecFloat => {
                self.bump();
                let v: f64 = self.text(t).parse().or_else(|_| self.err(t, "bad float"))?;
                if !v.is_finite() {
                    // `3E800`: no double holds it (write infinity as 0d7FF0000000000000)
                    return self.err(t, "floating-point literal out of range");
                }
                Operand::ImmFloat(v.to_bits())
            }
            Tok::Ident => {
                self.bump();
                let s = self.text(t);
                if s == "_" {
                    Operand::Sink
                } else if s.starts_with('%') {
                    self.register(t, s)
                } else if label {
                    Operand::Label(s.to_string())
                } else if self.kind() == Tok::Plus
                    && matches!(self.peek2().kind, Tok::DecInt | Tok::HexInt | Tok::Minus)
                {
                    self.bump();
                    let offset = self.signed("an offset")?;
                    Operand::SymOffset {
                        name: s.to_string(),
                        offset,
                    }
                } else {
                    Operand::Symbol(s.to_string())
                }
            }
            _ => {
                return self.err(
                    t,
                    format!("expected an operand, found {}", self.describe(t)),
                )
            }
        };
        if self.kind() == Tok::Pipe {
            self.bump();
            let b = self.operand(false)?;
            return Ok(Operand::Pair(Box::new(op), Box::new(b)));
        }
        Ok(op)
    }

    /// A `%name` operand: a special register (with its `.x` suffix) or a plain register.
    fn register(&mut self, t: Token, s: &'a str) -> Operand {
        let suffix = if self.kind() == Tok::Dot && self.peek().start == t.end {
            Some(self.peek())
        } else {
            None
        };
        let dim = suffix.and_then(|d| match self.dot_name(d) {
            "x" => Some(Dim::X),
            "y" => Some(Dim::Y),
            "z" => Some(Dim::Z),
            _ => None,
        });
        let with_dim = |f: fn(Dim) -> SReg| dim.map(f);
        let sreg = match s {
            "%tid" => with_dim(SReg::Tid),
            "%ntid" => with_dim(SReg::Ntid),
            "%ctaid" => with_dim(SReg::Ctaid),
            "%nctaid" => with_dim(SReg::Nctaid),
            _ if suffix.is_some() => None,
            "%laneid" => Some(SReg::Laneid),
            "%warpid" => Some(SReg::Warpid),
            "%nwarpid" => Some(SReg::Nwarpid),
            "%smid" => Some(SReg::Smid),
            "%nsmid" => Some(SReg::Nsmid),
            "%gridid" => Some(SReg::Gridid),
            "%clock" => Some(SReg::Clock),
            "%clock64" => Some(SReg::Clock64),
            "%globaltimer" => Some(SReg::Globaltimer),
            "%lanemask_eq" => Some(SReg::LanemaskEq),
            "%lanemask_le" => Some(SReg::LanemaskLe),
            "%lanemask_lt" => Some(SReg::LanemaskLt),
            "%lanemask_ge" => Some(SReg::LanemaskGe),
            "%lanemask_gt" => Some(SReg::LanemaskGt),
            "%dynamic_smem_size" => Some(SReg::DynamicSmemSize),
            "%total_smem_size" => Some(SReg::TotalSmemSize),
            _ => None,
        };
        if let Some(r) = sreg {
            if suffix.is_some() {
                self.bump();
            }
            return Operand::SpecialReg(r);
        }
        if let Some(d) = suffix {
            // `%clusterid.x` and friends: predefined, dotted, not modelled individually.
            self.bump();
            return Operand::SpecialReg(SReg::Other(format!("{s}{}", self.text(d))));
        }
        if is_other_sreg(s) {
            return Operand::SpecialReg(SReg::Other(s.to_string()));
        }
        Operand::Reg(s.to_string())
    }

    /// After `[`: `base`, `base+off`, `base+-off`, `base-off`, `imm`, or a list.
    fn address(&mut self) -> R<Operand> {
        let t = self.peek();
        let base = match t.kind {
            Tok::Ident => {
                let s = self.text(t);
                let nk = self.peek2().kind;
                if !matches!(nk, Tok::Plus | Tok::Minus | Tok::RBracket) {
                    None
                } else if s.starts_with('%') {
                    Some(AddrBase::Reg(s.to_string()))
                } else {
                    Some(AddrBase::Symbol(s.to_string()))
                }
            }
            Tok::DecInt | Tok::HexInt if self.peek2().kind == Tok::RBracket => Some(AddrBase::None),
            _ => None,
        };
        let Some(base) = base else {
            return Ok(Operand::AddrList(
                self.operand_list(Tok::RBracket, "`,` or `]` in an address")?,
            ));
        };
        let mut offset = 0i64;
        if base == AddrBase::None {
            offset = self.uint("an address")? as i64;
        } else {
            self.bump();
            if self.eat(Tok::Plus) {
                offset = self.signed("an offset")?;
            } else if self.eat(Tok::Minus) {
                offset = (self.uint("an offset")? as i64).wrapping_neg();
            }
        }
        self.expect(Tok::RBracket, "`]`")?;
        Ok(Operand::Addr { base, offset })
    }
}

fn is_other_sreg(s: &str) -> bool {
    s.starts_with("%envreg")
        || s.starts_with("%pm")
        || s.strip_prefix('%')
            .is_some_and(|name| super::ir::CLUSTER_REGISTERS.contains(&name))
        || matches!(
            s,
            "%aggr_smem_size"
                | "%reserved_smem_offset_begin"
                | "%reserved_smem_offset_end"
                | "%reserved_smem_offset_cap"
                | "%current_graph_exec"
        )
}

fn int_value(s: &str, k: Tok) -> Option<u64> {
    let s = s.strip_suffix('U').unwrap_or(s);
    match k {
        Tok::HexInt => u64::from_str_radix(&s[2..], 16).ok(),
        Tok::BinInt => u64::from_str_radix(&s[2..], 2).ok(),
        _ if s.len() > 1 && s.starts_with('0') => u64::from_str_radix(&s[1..], 8).ok(),
        _ => s.parse().ok(),
    }
}

fn unquote(s: &str) -> String {
    let inner = &s[1..s.len() - 1];
    if !inner.contains('\\') {
        return inner.to_string();
    }
    let mut out = String::with_capacity(inner.len());
    let mut it = inner.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Fills `SourceLoc::file_name` from the `.file` table (which nvcc and clang put at the end).
fn resolve_locs(m: &mut Module) {
    if m.files.is_empty() {
        return;
    }
    let names: Vec<(u32, Arc<str>)> = m
        .files
        .iter()
        .map(|f| (f.index, Arc::from(f.name.as_str())))
        .collect();
    fn walk(body: &mut [Statement], names: &[(u32, Arc<str>)]) {
        for s in body {
            match s {
                Statement::Inst(i) => {
                    if let Some(l) = i.loc.as_mut() {
                        l.file_name = names
                            .iter()
                            .find(|(k, _)| *k == l.file_index)
                            .map(|(_, n)| n.clone());
                    }
                }
                Statement::Block(b) => walk(&mut b.body, names),
                _ => {}
            }
        }
    }
    for f in &mut m.functions {
        walk(&mut f.body, &names);
    }
}
