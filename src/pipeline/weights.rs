//! Printing weight tables for people.

/// A king table as text: a title line, a header of files 9..1, then ranks a..i;
/// each weight multiplied by `scale`, the king's square shown as `K`.
pub fn format_king_table(table: &[[Option<f64>; 9]; 9], title: &str, scale: f64) -> String {
    let mut s = format!("{title}\n   ");
    for file in (1..=9).rev() {
        s.push_str(&format!("{file:>9}"));
    }
    s.push('\n');
    for (r, row) in table.iter().enumerate() {
        s.push_str(&format!("{:>3}", (b'a' + r as u8) as char));
        for cell in row {
            match cell {
                Some(w) => s.push_str(&format!("{:>9.2}", w * scale)),
                None => s.push_str(&format!("{:>9}", "K")),
            }
        }
        s.push('\n');
    }
    s
}
