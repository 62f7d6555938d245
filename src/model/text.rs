//! liblinear's text model: written with C's `%.17g` (so our files are
//! byte-identical to liblinear's) and read the way its `load_model` reads.

use std::fmt::Write as _;
use std::path::Path;

use super::{Model, ModelError, MAX_FEATURES};

impl Model {
    /// liblinear's text model, as one string (see [`Model::write_text`]).
    pub fn to_text(&self) -> String {
        // Room for the longest text these weights can have: 4 bytes for a zero
        // ("-0 \n"), 26 for any other. (24 bytes for every weight, as this
        // reserved before, held 123 MB for a `relation` model whose text,
        // nearly all "0", is 15 MB.)
        let nonzero = self.w.iter().filter(|&&w| w != 0.0).count();
        let mut text = Vec::with_capacity(100 + nonzero * 26 + (self.w.len() - nonzero) * 4);
        self.write_text(&mut text)
            .expect("writing to a Vec cannot fail");
        String::from_utf8(text).expect("the model text is ASCII")
    }

    /// Writes liblinear's text model to `out`, a wave at a time, so the whole
    /// text is never held: saving a model costs the memory of one wave, not
    /// of its file (15 MB for a `relation` model, half of `fit`'s peak RSS on
    /// 15,785 real rows).
    ///
    /// `%.17g` of millions of weights was about a third of `fit`'s time on the
    /// 300k synthetic set, so the weights are formatted in parallel: a wave of
    /// `FORMAT_CHUNK`-weight chunks, one per core, is formatted at once (the
    /// first on this thread, the others on scoped threads) and written in
    /// order. The text is the sequential one, byte for byte. Plain scoped
    /// threads, not rayon's pool: a thread that cannot be started (a memory
    /// limit, as `prlimit --data` sets) has its chunk formatted here instead,
    /// where a pool that fails to start blocks for good.
    pub fn write_text(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        write!(
            out,
            "solver_type {}\nnr_class 2\nnr_feature {}\nbias {}\nw\n",
            self.solver_type,
            self.w.len(),
            format_g17(self.bias)
        )?;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        for wave in self.w.chunks(FORMAT_CHUNK * threads) {
            let mut chunks = wave.chunks(FORMAT_CHUNK);
            let first = chunks.next().unwrap_or_default();
            std::thread::scope(|scope| {
                let others: Vec<_> = chunks
                    .map(|chunk| {
                        let handle = std::thread::Builder::new()
                            .stack_size(256 * 1024)
                            .spawn_scoped(scope, move || format_weights(chunk))
                            .ok();
                        (chunk, handle)
                    })
                    .collect();
                out.write_all(format_weights(first).as_bytes())?;
                for (chunk, handle) in others {
                    let text = match handle.map(|h| h.join()) {
                        Some(Ok(text)) => text,
                        Some(Err(panic)) => std::panic::resume_unwind(panic),
                        None => format_weights(chunk),
                    };
                    out.write_all(text.as_bytes())?;
                }
                Ok::<(), std::io::Error>(())
            })?;
        }
        if self.bias >= 0.0 {
            writeln!(out, "{} ", format_g17(self.bias_weight))?;
        }
        Ok(())
    }

    /// Reads liblinear's text model the way its `load_model` does: header keys
    /// in any order up to `w`, then whitespace-separated weights.
    pub fn from_text(path: &Path, text: &str) -> Result<Model, ModelError> {
        let err = |message: String| ModelError::Format {
            path: path.to_path_buf(),
            message,
        };
        // The line of a token of `text` (tokens are slices of it).
        let line_of = |token: &str| {
            let at = (token.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
            1 + text.as_bytes()[..at.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
        };
        let mut tokens = text.split_ascii_whitespace();
        let (mut solver, mut nr_feature, mut bias, mut nr_class) = (None, None, None, None);
        let mut nr_feature_line = 0;
        let (w_line, w_at) = loop {
            let key = tokens
                .next()
                .ok_or_else(|| err("no \"w\" line before the end of the file".into()))?;
            let mut value = |what: &str| {
                tokens
                    .next()
                    .ok_or_else(|| err(format!("expected a value after \"{what}\"")))
            };
            match key {
                "w" => break (line_of(key), key.as_ptr() as usize - text.as_ptr() as usize),
                "solver_type" => solver = Some(value(key)?.to_string()),
                "nr_class" => nr_class = Some(value(key)?.to_string()),
                "nr_feature" => {
                    let v = value(key)?;
                    nr_feature_line = line_of(v);
                    let n = v.parse::<u32>().map_err(|_| {
                        err(format!(
                            "line {nr_feature_line}: found \"{v}\", expected a feature count after nr_feature"
                        ))
                    })?;
                    if n as usize > MAX_FEATURES {
                        return Err(err(format!(
                            "line {nr_feature_line}: nr_feature {n} is beyond the limit of {MAX_FEATURES} features"
                        )));
                    }
                    nr_feature = Some(n)
                }
                "bias" => {
                    let v = value(key)?;
                    bias =
                        Some(v.parse::<f64>().map_err(|_| {
                            err(format!("found \"{v}\", expected a number after bias"))
                        })?)
                }
                other => return Err(err(format!("unknown text in model file: \"{other}\""))),
            }
        };
        let solver = solver.ok_or_else(|| err("missing solver_type".into()))?;
        if !solver.contains("SVR") {
            return Err(err(format!(
                "solver_type {solver} is not a regression model (expected L2R_L2LOSS_SVR or an SVR dual)"
            )));
        }
        if nr_class.as_deref() != Some("2") {
            return Err(err("expected nr_class 2 for a regression model".into()));
        }
        let n = nr_feature.ok_or_else(|| err("missing nr_feature".into()))? as usize;
        let bias = bias.ok_or_else(|| err("missing bias".into()))?;
        let total = n + usize::from(bias >= 0.0);
        // Each weight takes at least two bytes (a digit and a separator): never
        // reserve more than the rest of the file can hold.
        let room = text.len().saturating_sub(w_at) / 2 + 1;
        let mut w = Vec::with_capacity(total.min(room));
        for k in 0..total {
            let t = tokens.next().ok_or_else(|| {
                err(format!(
                    "line {nr_feature_line}: nr_feature {n}{} needs {total} weights after \"w\" (line {w_line}), the file has {k}",
                    if bias >= 0.0 { " and the bias" } else { "" }
                ))
            })?;
            w.push(t.parse::<f64>().map_err(|_| {
                err(format!(
                    "line {}: found \"{t}\", expected weight {}",
                    line_of(t),
                    k + 1
                ))
            })?);
        }
        if let Some(t) = tokens.next() {
            return Err(err(format!(
                "line {}: found \"{t}\" after the {total} weights that nr_feature {n} (line {nr_feature_line}) announces",
                line_of(t)
            )));
        }
        let bias_weight = if bias >= 0.0 {
            w.pop().unwrap_or(0.0)
        } else {
            0.0
        };
        Ok(Model {
            solver_type: solver,
            w,
            bias,
            bias_weight,
            features: String::new(),
        })
    }
}

/// C's `printf("%.17g", x)`, which round-trips every `f64`.
pub fn format_g17(x: f64) -> String {
    format_g(x, 17)
}

/// `weights` as the model text's lines (`%.17g` and " \n" each).
fn format_weights(weights: &[f64]) -> String {
    // At most 24 bytes of `%.17g` and 2 of " \n" a weight: never grown.
    let mut text = String::with_capacity(weights.len() * 26);
    let mut scratch = String::new();
    for &w in weights {
        push_g(&mut text, w, 17, &mut scratch);
        text.push_str(" \n");
    }
    text
}

/// Weights per parallel task of [`Model::to_text`].
pub(super) const FORMAT_CHUNK: usize = 1 << 15;

/// C's `printf("%.Pg", x)`: `P` significant digits, trailing zeros removed,
/// scientific when the exponent is < -4 or >= P, exponent of two digits or more.
pub fn format_g(x: f64, precision: usize) -> String {
    let mut out = String::new();
    push_g(&mut out, x, precision, &mut String::new());
    out
}

/// [`format_g`] appended to `out`, with `scratch` for Rust's `{:e}` form (so a
/// loop over many numbers allocates nothing once the buffers have grown).
fn push_g(out: &mut String, x: f64, precision: usize, scratch: &mut String) {
    let precision = precision.max(1);
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    if !x.is_finite() {
        out.push_str(if x.is_nan() {
            "nan"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        });
        return;
    }
    scratch.clear();
    let _ = write!(scratch, "{x:.*e}", precision - 1);
    let (mantissa, exp) = scratch.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    if exp < -4 || exp >= precision as i32 {
        let m = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        let _ = write!(out, "{m}e{sign}{:02}", exp.abs());
    } else {
        let decimals = (precision as i32 - 1 - exp) as usize;
        let start = out.len();
        let _ = write!(out, "{x:.decimals$}");
        let kept = strip_zeros(&out[start..]).len();
        out.truncate(start + kept);
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}
