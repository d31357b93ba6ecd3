//! textkit: small text utilities for WASI (wasm32-wasip1).
//!
//! Every subcommand reads the named FILEs (relative paths are resolved against
//! /workspace when that directory exists) or standard input when no FILE is
//! given, and writes its result to standard output.

use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use regex::{Regex, RegexBuilder};

const WORKSPACE: &str = "/workspace";

const TOP_AFTER_HELP: &str = "\
Input: FILE arguments are read from the workspace (relative paths are resolved \
against /workspace); '-' or no FILE reads standard input.
Exit status: 0 on success, 1 on a runtime error (unreadable file, invalid pattern), 2 on invalid arguments.

Keywords: text, lines, search, grep, count, replace, sort, head, tail, case, transform
PermissionLevel: read";

const SUB_AFTER_HELP: &str = "\
Relative FILE paths are resolved against /workspace; '-' or no FILE reads standard input.
PermissionLevel: read";

#[derive(Parser, Debug)]
#[command(
    name = "textkit",
    version,
    about = "Text utilities: count, search, replace, slice, sort and re-case lines of text",
    long_about = "Text utilities: count, search, replace, slice, sort and re-case lines of text.\n\n\
Each subcommand reads the given files from the workspace (or standard input) and prints \
its result to standard output as plain text.",
    after_help = TOP_AFTER_HELP,
    subcommand_required = true,
    arg_required_else_help = true,
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Debug)]
struct Inputs {
    /// Files to read (relative to /workspace); reads standard input when omitted or '-'
    #[arg(value_name = "FILE")]
    files: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count lines, words, characters and bytes
    #[command(
        long_about = "Count lines, words, characters and bytes, like wc. Prints one row per input: the selected counts \
separated by tabs, in the order lines, words, chars, bytes, followed by the file name (omitted for standard input); \
a 'total' row follows when several files are given. With no selection flag all four counts are shown.",
        after_help = SUB_AFTER_HELP
    )]
    Count {
        /// Show the number of lines (newline characters, plus one for a final line without a newline)
        #[arg(short = 'l', long)]
        lines: bool,
        /// Show the number of words (runs of non-whitespace characters)
        #[arg(short = 'w', long)]
        words: bool,
        /// Show the number of Unicode characters (each invalid UTF-8 sequence counts as one)
        #[arg(short = 'm', long)]
        chars: bool,
        /// Show the number of bytes
        #[arg(short = 'c', long)]
        bytes: bool,
        /// Print the counts as a JSON object (or an array of objects for several files)
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        input: Inputs,
    },
    /// Print lines that match a pattern
    #[command(
        long_about = "Print lines that match a pattern (a regular expression unless --fixed-strings). \
With several FILEs each line is prefixed with the file name. Exits 0 even when nothing matches.",
        after_help = "Regex syntax: Rust regex (no look-around or back-references); \\w \\d \\s are Unicode-aware.\n\
Relative FILE paths are resolved against /workspace; '-' or no FILE reads standard input.\n\
PermissionLevel: read"
    )]
    Grep {
        /// Regular expression (or literal text with -F) to search for
        #[arg(value_name = "PATTERN")]
        pattern: String,
        /// Treat PATTERN as literal text, not a regular expression
        #[arg(short = 'F', long)]
        fixed_strings: bool,
        /// Ignore case when matching
        #[arg(short = 'i', long)]
        ignore_case: bool,
        /// Select the lines that do NOT match
        #[arg(short = 'v', long)]
        invert_match: bool,
        /// Prefix each output line with its 1-based line number
        #[arg(short = 'n', long)]
        line_number: bool,
        /// Print only the number of selected lines (per file)
        #[arg(short = 'c', long)]
        count: bool,
        /// Stop after N selected lines per file (0 means no limit)
        #[arg(short = 'm', long, value_name = "N", default_value_t = 0)]
        max_count: usize,
        #[command(flatten)]
        input: Inputs,
    },
    /// Replace occurrences of a text or pattern
    #[command(
        long_about = "Replace occurrences of FROM with TO in the input and print the whole result. \
FROM is literal text unless --regex is given; with --regex, TO may refer to capture groups as $1, ${name}. \
Several FILEs are processed one after another.",
        after_help = SUB_AFTER_HELP
    )]
    Replace {
        /// Text (or regular expression with --regex) to search for
        #[arg(value_name = "FROM")]
        from: String,
        /// Replacement text ($1, ${name} expand capture groups when --regex is given)
        #[arg(value_name = "TO")]
        to: String,
        /// Treat FROM as a regular expression
        #[arg(short = 'r', long)]
        regex: bool,
        /// Ignore case when matching FROM
        #[arg(short = 'i', long)]
        ignore_case: bool,
        /// Replace at most N occurrences per file (0 means all)
        #[arg(short = 'l', long, value_name = "N", default_value_t = 0)]
        limit: usize,
        #[command(flatten)]
        input: Inputs,
    },
    /// Print the first lines of the input
    #[command(
        long_about = "Print the first N lines of each FILE (or standard input). \
With several FILEs each is preceded by a '==> FILE <==' header.",
        after_help = SUB_AFTER_HELP
    )]
    Head {
        /// Number of lines to print
        #[arg(short = 'n', long, value_name = "N", default_value_t = 10)]
        lines: usize,
        #[command(flatten)]
        input: Inputs,
    },
    /// Print the last lines of the input
    #[command(
        long_about = "Print the last N lines of each FILE (or standard input). \
With several FILEs each is preceded by a '==> FILE <==' header.",
        after_help = SUB_AFTER_HELP
    )]
    Tail {
        /// Number of lines to print
        #[arg(short = 'n', long, value_name = "N", default_value_t = 10)]
        lines: usize,
        #[command(flatten)]
        input: Inputs,
    },
    /// Sort lines
    #[command(
        long_about = "Sort the lines of all inputs together and print them. The sort is stable; \
by default lines are compared byte-wise as text.",
        after_help = SUB_AFTER_HELP
    )]
    Sort {
        /// Reverse the order
        #[arg(short = 'r', long)]
        reverse: bool,
        /// Print only the first of each run of equal lines (equal under the chosen comparison)
        #[arg(short = 'u', long)]
        unique: bool,
        /// Compare by the leading number of each line (lines without one sort first, as 0)
        #[arg(short = 'n', long)]
        numeric: bool,
        /// Ignore case when comparing
        #[arg(short = 'f', long)]
        ignore_case: bool,
        #[command(flatten)]
        input: Inputs,
    },
    /// Convert text to another letter case or naming style
    #[command(
        long_about = "Convert text to another letter case or naming style. upper, lower and title \
work on the whole text; snake, kebab, camel and pascal convert each line as an identifier \
(words are split on spaces, punctuation and lower-to-upper case changes).",
        after_help = SUB_AFTER_HELP
    )]
    Case {
        /// Target case: upper (ALL CAPS), lower, title (Each Word Capitalised), snake (foo_bar), kebab (foo-bar), camel (fooBar), pascal (FooBar)
        #[arg(short = 't', long, value_enum, value_name = "CASE")]
        to: CaseStyle,
        #[command(flatten)]
        input: Inputs,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum CaseStyle {
    Upper,
    Lower,
    Title,
    Snake,
    Kebab,
    Camel,
    Pascal,
}

/// One input: display name and its contents.
struct Input {
    name: String,
    data: Vec<u8>,
}

impl Input {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.data).into_owned()
    }
}

fn resolve(path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let ws = Path::new(WORKSPACE);
    if ws.is_dir() {
        ws.join(p)
    } else {
        p.to_path_buf()
    }
}

fn read_inputs(files: &[String]) -> Result<Vec<Input>, String> {
    if files.is_empty() {
        return Ok(vec![read_stdin()?]);
    }
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        if f == "-" {
            out.push(read_stdin()?);
            continue;
        }
        let path = resolve(f);
        if path.is_dir() {
            return Err(format!("{}: Is a directory", f));
        }
        match std::fs::read(&path) {
            Ok(data) => out.push(Input { name: f.clone(), data }),
            Err(e) => return Err(format!("{}: {}", f, describe_io_error(&e))),
        }
    }
    Ok(out)
}

fn read_stdin() -> Result<Input, String> {
    let mut data = Vec::new();
    io::stdin()
        .read_to_end(&mut data)
        .map_err(|e| format!("standard input: {}", describe_io_error(&e)))?;
    Ok(Input { name: "-".to_string(), data })
}

fn describe_io_error(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "No such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// Split text into lines without their terminators ("\n" or "\r\n").
fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()
}

fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

struct Counts {
    lines: usize,
    words: usize,
    chars: usize,
    bytes: usize,
}

fn count(data: &[u8]) -> Counts {
    let text = String::from_utf8_lossy(data);
    let mut lines = data.iter().filter(|&&b| b == b'\n').count();
    if !data.is_empty() && data[data.len() - 1] != b'\n' {
        lines += 1;
    }
    Counts {
        lines,
        words: text.split_whitespace().count(),
        chars: text.chars().count(),
        bytes: data.len(),
    }
}

fn run_count(
    inputs: &[Input],
    sel: [bool; 4],
    json: bool,
    out: &mut String,
) {
    let sel = if sel.iter().any(|&b| b) { sel } else { [true; 4] };
    let names = ["lines", "words", "chars", "bytes"];
    let mut rows: Vec<(String, [usize; 4])> = inputs
        .iter()
        .map(|i| {
            let c = count(&i.data);
            (i.name.clone(), [c.lines, c.words, c.chars, c.bytes])
        })
        .collect();
    if rows.len() > 1 {
        let mut t = [0usize; 4];
        for (_, r) in &rows {
            for k in 0..4 {
                t[k] += r[k];
            }
        }
        rows.push(("total".to_string(), t));
    }
    if json {
        let objs: Vec<String> = rows
            .iter()
            .map(|(name, r)| {
                let mut o = format!("{{\"file\": {}", json_escape(name));
                for k in 0..4 {
                    if sel[k] {
                        let _ = write!(o, ", \"{}\": {}", names[k], r[k]);
                    }
                }
                o.push('}');
                o
            })
            .collect();
        if objs.len() == 1 {
            out.push_str(&objs[0]);
        } else {
            out.push('[');
            out.push_str(&objs.join(", "));
            out.push(']');
        }
        out.push('\n');
        return;
    }
    for (name, r) in &rows {
        let mut cols: Vec<String> = (0..4).filter(|&k| sel[k]).map(|k| r[k].to_string()).collect();
        if inputs.len() > 1 || name != "-" {
            cols.push(name.clone());
        }
        out.push_str(&cols.join("\t"));
        out.push('\n');
    }
}

fn build_regex(pattern: &str, literal: bool, ignore_case: bool) -> Result<Regex, String> {
    let pat = if literal { regex::escape(pattern) } else { pattern.to_string() };
    RegexBuilder::new(&pat)
        .case_insensitive(ignore_case)
        .size_limit(32 << 20)
        .build()
        .map_err(|e| format!("invalid pattern: {}", e))
}

fn apply_case(text: &str, to: CaseStyle) -> String {
    match to {
        CaseStyle::Upper => text.to_uppercase(),
        CaseStyle::Lower => text.to_lowercase(),
        CaseStyle::Title => title_case(text),
        _ => {
            let mut out = String::with_capacity(text.len());
            for (i, line) in split_lines(text).iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&ident_case(line, to));
            }
            if text.ends_with('\n') {
                out.push('\n');
            }
            out
        }
    }
}

fn title_case(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at_start = true;
    for c in text.chars() {
        if c.is_alphanumeric() || c == '\'' {
            if at_start {
                out.extend(c.to_uppercase());
            } else {
                out.extend(c.to_lowercase());
            }
            at_start = false;
        } else {
            out.push(c);
            at_start = true;
        }
    }
    out
}

/// Split an identifier-ish string into lower-case words.
fn words_of(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).map_or(false, |n| n.is_lowercase());
            // fooBar -> foo|Bar ; HTTPServer -> HTTP|Server ; v2Api -> v2|Api
            if prev.is_lowercase() || prev.is_numeric() || (prev.is_uppercase() && next_lower) {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

fn capitalise(w: &str) -> String {
    let mut cs = w.chars();
    match cs.next() {
        Some(f) => f.to_uppercase().chain(cs).collect(),
        None => String::new(),
    }
}

fn ident_case(line: &str, to: CaseStyle) -> String {
    let words = words_of(line);
    match to {
        CaseStyle::Snake => words.join("_"),
        CaseStyle::Kebab => words.join("-"),
        CaseStyle::Camel => words
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.clone() } else { capitalise(w) })
            .collect(),
        CaseStyle::Pascal => words.iter().map(|w| capitalise(w)).collect(),
        _ => line.to_string(),
    }
}

/// Leading number of a line for numeric sort (like `sort -n`, also accepting exponents).
fn leading_number(line: &str) -> f64 {
    let s = line.trim_start();
    let b = s.as_bytes();
    let mut end = 0;
    if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
        end += 1;
    }
    let digits_start = end;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end < b.len() && b[end] == b'.' {
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    if end == digits_start || (end == digits_start + 1 && b[digits_start] == b'.') {
        return 0.0;
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut e = end + 1;
        if e < b.len() && (b[e] == b'-' || b[e] == b'+') {
            e += 1;
        }
        let exp_digits = e;
        while e < b.len() && b[e].is_ascii_digit() {
            e += 1;
        }
        if e > exp_digits {
            end = e;
        }
    }
    s[..end].parse::<f64>().unwrap_or(0.0)
}

fn push_header(out: &mut String, multi: bool, idx: usize, name: &str) {
    if multi {
        if idx > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "==> {} <==", name);
    }
}

fn run(cmd: Command) -> Result<String, String> {
    let mut out = String::new();
    match cmd {
        Command::Count { lines, words, chars, bytes, json, input } => {
            let inputs = read_inputs(&input.files)?;
            run_count(&inputs, [lines, words, chars, bytes], json, &mut out);
        }
        Command::Grep {
            pattern,
            fixed_strings,
            ignore_case,
            invert_match,
            line_number,
            count,
            max_count,
            input,
        } => {
            let re = build_regex(&pattern, fixed_strings, ignore_case)?;
            let inputs = read_inputs(&input.files)?;
            let multi = inputs.len() > 1;
            for inp in &inputs {
                let text = inp.text();
                let mut n = 0usize;
                for (i, line) in split_lines(&text).iter().enumerate() {
                    if max_count > 0 && n >= max_count {
                        break;
                    }
                    if re.is_match(line) == invert_match {
                        continue;
                    }
                    n += 1;
                    if count {
                        continue;
                    }
                    if multi {
                        let _ = write!(out, "{}:", inp.name);
                    }
                    if line_number {
                        let _ = write!(out, "{}:", i + 1);
                    }
                    out.push_str(line);
                    out.push('\n');
                }
                if count {
                    if multi {
                        let _ = write!(out, "{}:", inp.name);
                    }
                    let _ = writeln!(out, "{}", n);
                }
            }
        }
        Command::Replace { from, to, regex, ignore_case, limit, input } => {
            if from.is_empty() {
                return Err("FROM must not be empty".to_string());
            }
            let re = build_regex(&from, !regex, ignore_case)?;
            let inputs = read_inputs(&input.files)?;
            for inp in &inputs {
                let text = inp.text();
                let replaced = if regex {
                    re.replacen(&text, limit, to.as_str())
                } else {
                    re.replacen(&text, limit, regex::NoExpand(&to))
                };
                out.push_str(&replaced);
            }
        }
        Command::Head { lines: n, input } => {
            let inputs = read_inputs(&input.files)?;
            let multi = inputs.len() > 1;
            for (idx, inp) in inputs.iter().enumerate() {
                push_header(&mut out, multi, idx, &inp.name);
                let text = inp.text();
                for line in split_lines(&text).iter().take(n) {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        Command::Tail { lines: n, input } => {
            let inputs = read_inputs(&input.files)?;
            let multi = inputs.len() > 1;
            for (idx, inp) in inputs.iter().enumerate() {
                push_header(&mut out, multi, idx, &inp.name);
                let text = inp.text();
                let all = split_lines(&text);
                let start = all.len().saturating_sub(n);
                for line in &all[start..] {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        Command::Sort { reverse, unique, numeric, ignore_case, input } => {
            let inputs = read_inputs(&input.files)?;
            let texts: Vec<String> = inputs.iter().map(|i| i.text()).collect();
            let mut lines: Vec<&str> = texts.iter().flat_map(|t| split_lines(t)).collect();
            let key = |s: &str| -> String {
                if ignore_case {
                    s.to_lowercase()
                } else {
                    s.to_string()
                }
            };
            let cmp = |a: &&str, b: &&str| -> std::cmp::Ordering {
                if numeric {
                    let (x, y) = (leading_number(a), leading_number(b));
                    x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal)
                } else {
                    key(a).cmp(&key(b))
                }
            };
            lines.sort_by(|a, b| if reverse { cmp(b, a) } else { cmp(a, b) });
            if unique {
                lines.dedup_by(|a, b| cmp(a, b) == std::cmp::Ordering::Equal);
            }
            for l in lines {
                out.push_str(l);
                out.push('\n');
            }
        }
        Command::Case { to, input } => {
            let inputs = read_inputs(&input.files)?;
            for inp in &inputs {
                out.push_str(&apply_case(&inp.text(), to));
            }
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(text) => {
            let stdout = io::stdout();
            let mut lock = stdout.lock();
            if lock.write_all(text.as_bytes()).and_then(|_| lock.flush()).is_err() {
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("textkit: {}", msg);
            ExitCode::from(1)
        }
    }
}
