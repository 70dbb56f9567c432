//! Key names and combinations, as agents write them (`Enter`, `a`, `Control+Shift+R`).
//!
//! [`parse_combo`] turns such a name into what `Input.dispatchKeyEvent` needs for each
//! key: the DOM `key` and `code`, the Windows virtual key code, the text the key types
//! (if any) and the modifier bitmask CDP expects. The names follow the reference
//! implementation's (Puppeteer's US keyboard layout): case matters for single
//! characters (`a` and `A` are different keys) but not for named keys (`enter` is
//! `Enter`). It lives in `shared` so the host can check a name before sending it and
//! the extension can dispatch it, from one table.
//!
//! Deliberately not here: other keyboard layouts, dead keys, IME composition.

/// CDP modifier bits (`Input.dispatchKeyEvent`'s `modifiers`).
pub mod modifier {
    /// Alt.
    pub const ALT: u32 = 1;
    /// Control.
    pub const CONTROL: u32 = 2;
    /// Meta (Command on a Mac).
    pub const META: u32 = 4;
    /// Shift.
    pub const SHIFT: u32 = 8;
}

/// One physical key, as a key event describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The DOM `key` value (`a`, `A`, `Enter`, `ArrowLeft`, `Shift`, ...).
    pub key: String,
    /// The DOM `code` value: the physical key (`KeyA`, `Enter`, `ShiftLeft`, ...).
    pub code: String,
    /// The Windows virtual key code (`keyCode`).
    pub windows_virtual_key_code: u32,
    /// The text the key types, if it types any (none when a non-Shift modifier is held).
    pub text: Option<String>,
    /// `location`: 0 standard, 1 left (the modifiers).
    pub location: u32,
    /// The modifier bit this key is, if it is a modifier.
    pub modifier_bit: u32,
}

/// A key combination: modifiers held (in pressing order) around one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combo {
    /// The modifier keys, pressed in this order and released in reverse.
    pub modifiers: Vec<Key>,
    /// The key pressed while they are held.
    pub key: Key,
    /// The modifier bitmask in force while `key` is pressed (see [`modifier`]).
    pub modifier_bits: u32,
}

/// What an error about a key name suggests instead.
const EXAMPLES: &str = "use names like Enter, Tab, ArrowLeft, a, Control+Shift+R \
                        (modifiers: Control, Shift, Alt, Meta, ControlOrMeta)";

/// Reads a key combination such as `Enter`, `a`, `Shift+Tab`, `Control+Shift+R` or
/// `Control++`: modifiers joined with `+`, then one key. `ControlOrMeta` is Control
/// (the browser runs on Linux or Windows as far as this table knows). With Shift held,
/// a character key types its shifted character (`Shift+a` types `A`); with Control,
/// Alt or Meta held, no key types text.
pub fn parse_combo(combo: &str) -> Result<Combo, String> {
    if combo.is_empty() {
        return Err(format!("No key given: {EXAMPLES}."));
    }
    // The last key may itself be `+`: `+`, `Control++`.
    let (head, last) = if combo == "+" {
        ("", "+")
    } else if let Some(head) = combo.strip_suffix("++") {
        (head, "+")
    } else {
        match combo.rsplit_once('+') {
            Some((head, last)) => (head, last),
            None => ("", combo),
        }
    };
    let mut modifiers = Vec::new();
    let mut bits = 0;
    if !head.is_empty() {
        for name in head.split('+') {
            let key = named_key(name).ok_or_else(|| unknown(name, combo))?;
            if key.modifier_bit == 0 {
                return Err(format!(
                    "\"{name}\" in \"{combo}\" is not a modifier: only the last key of a \
                     combination may be an ordinary key; {EXAMPLES}."
                ));
            }
            if bits & key.modifier_bit == 0 {
                bits |= key.modifier_bit;
                modifiers.push(key);
            }
        }
    }
    let mut key = named_key(last).ok_or_else(|| unknown(last, combo))?;
    if bits & modifier::SHIFT != 0 {
        if let Some(shifted) = shifted(&key.key) {
            key.key = shifted.to_owned();
            key.text = Some(shifted.to_owned());
        }
    }
    if bits & (modifier::CONTROL | modifier::ALT | modifier::META) != 0 {
        key.text = None;
    }
    Ok(Combo {
        modifiers,
        modifier_bits: bits | key.modifier_bit,
        key,
    })
}

/// The key that types `c` on a US keyboard (for typing text key by key), if any.
/// `\n` and `\r` are Enter.
pub fn key_for_char(c: char) -> Option<Key> {
    match c {
        '\n' | '\r' => named_key("Enter"),
        c if c.is_ascii_graphic() || c == ' ' => named_key(c.encode_utf8(&mut [0; 4])),
        _ => None,
    }
}

fn unknown(name: &str, combo: &str) -> String {
    if name.is_empty() {
        format!("\"{combo}\" has an empty key name: {EXAMPLES}.")
    } else if name == combo {
        format!("Unknown key \"{name}\": {EXAMPLES}.")
    } else {
        format!("Unknown key \"{name}\" in \"{combo}\": {EXAMPLES}.")
    }
}

fn key(key: &str, code: &str, vk: u32, text: Option<&str>) -> Key {
    Key {
        key: key.to_owned(),
        code: code.to_owned(),
        windows_virtual_key_code: vk,
        text: text.map(str::to_owned),
        location: 0,
        modifier_bit: 0,
    }
}

/// US-layout punctuation: (unshifted, shifted, code, virtual key code).
const PUNCTUATION: [(char, char, &str, u32); 11] = [
    ('`', '~', "Backquote", 192),
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
];

/// The shifted digits, `)` for 0 through `(` for 9.
const SHIFTED_DIGITS: [char; 10] = [')', '!', '@', '#', '$', '%', '^', '&', '*', '('];

/// What Shift turns a character key into.
fn shifted(key: &str) -> Option<&'static str> {
    let mut chars = key.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if c.is_ascii_lowercase() {
        let i = (c as u8 - b'a') as usize;
        return UPPER.get(i..=i);
    }
    if let Some(d) = c.to_digit(10) {
        return Some(static_char(SHIFTED_DIGITS[d as usize]));
    }
    PUNCTUATION
        .iter()
        .find(|(plain, ..)| *plain == c)
        .map(|(_, shifted, ..)| static_char(*shifted))
}

/// A `&'static str` for one of the ASCII characters of the tables above.
fn static_char(c: char) -> &'static str {
    const ASCII: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
    let i = (c as usize).wrapping_sub(32);
    ASCII.get(i..=i).unwrap_or("")
}

/// A key by its name: one character, or a named key (case-insensitive).
fn named_key(name: &str) -> Option<Key> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if let Some(found) = char_key(c) {
            return Some(found);
        }
    }
    let lower = name.to_ascii_lowercase();
    let modifier = |k: &str, code: &str, vk: u32, bit: u32| Key {
        location: 1,
        modifier_bit: bit,
        ..key(k, code, vk, None)
    };
    let found = match lower.as_str() {
        "enter" | "return" => key("Enter", "Enter", 13, Some("\r")),
        "tab" => key("Tab", "Tab", 9, None),
        "escape" | "esc" => key("Escape", "Escape", 27, None),
        "backspace" => key("Backspace", "Backspace", 8, None),
        "delete" => key("Delete", "Delete", 46, None),
        "space" => key(" ", "Space", 32, Some(" ")),
        "arrowup" => key("ArrowUp", "ArrowUp", 38, None),
        "arrowdown" => key("ArrowDown", "ArrowDown", 40, None),
        "arrowleft" => key("ArrowLeft", "ArrowLeft", 37, None),
        "arrowright" => key("ArrowRight", "ArrowRight", 39, None),
        "home" => key("Home", "Home", 36, None),
        "end" => key("End", "End", 35, None),
        "pageup" => key("PageUp", "PageUp", 33, None),
        "pagedown" => key("PageDown", "PageDown", 34, None),
        "insert" => key("Insert", "Insert", 45, None),
        "capslock" => key("CapsLock", "CapsLock", 20, None),
        "numlock" => key("NumLock", "NumLock", 144, None),
        "scrolllock" => key("ScrollLock", "ScrollLock", 145, None),
        "pause" => key("Pause", "Pause", 19, None),
        "printscreen" => key("PrintScreen", "PrintScreen", 44, None),
        "contextmenu" => key("ContextMenu", "ContextMenu", 93, None),
        "shift" => modifier("Shift", "ShiftLeft", 16, modifier::SHIFT),
        "control" => modifier("Control", "ControlLeft", 17, modifier::CONTROL),
        "controlormeta" => modifier("Control", "ControlLeft", 17, modifier::CONTROL),
        "alt" => modifier("Alt", "AltLeft", 18, modifier::ALT),
        "meta" => modifier("Meta", "MetaLeft", 91, modifier::META),
        function => {
            let n: u32 = function.strip_prefix('f')?.parse().ok()?;
            if !(1..=24).contains(&n) || function.starts_with("f0") {
                return None;
            }
            let name = format!("F{n}");
            key(&name, &name, 111 + n, None)
        }
    };
    Some(found)
}

/// A one-character key: letters, digits, punctuation (plain or shifted) and space.
fn char_key(c: char) -> Option<Key> {
    let text = static_char(c);
    if c == ' ' {
        return Some(key(" ", "Space", 32, Some(" ")));
    }
    if c.is_ascii_alphabetic() {
        let upper = c.to_ascii_uppercase();
        let code = format!("Key{upper}");
        return Some(key(text, &code, upper as u32, Some(text)));
    }
    if let Some(d) = c.to_digit(10) {
        return Some(key(text, &format!("Digit{d}"), 48 + d, Some(text)));
    }
    if let Some(d) = SHIFTED_DIGITS.iter().position(|s| *s == c) {
        return Some(key(text, &format!("Digit{d}"), 48 + d as u32, Some(text)));
    }
    let (_, _, code, vk) = PUNCTUATION
        .iter()
        .find(|(plain, shifted, ..)| *plain == c || *shifted == c)?;
    Some(key(text, code, *vk, Some(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(combo: &str) -> Combo {
        parse_combo(combo).unwrap_or_else(|e| panic!("{combo}: {e}"))
    }

    #[test]
    fn named_keys_have_their_codes() {
        let enter = parse("Enter").key;
        assert_eq!(
            (enter.key.as_str(), enter.code.as_str()),
            ("Enter", "Enter")
        );
        assert_eq!(enter.windows_virtual_key_code, 13);
        assert_eq!(enter.text.as_deref(), Some("\r"));
        for (name, vk) in [
            ("Tab", 9),
            ("Escape", 27),
            ("Backspace", 8),
            ("Delete", 46),
            ("ArrowUp", 38),
            ("ArrowDown", 40),
            ("ArrowLeft", 37),
            ("ArrowRight", 39),
            ("Home", 36),
            ("End", 35),
            ("PageUp", 33),
            ("PageDown", 34),
            ("Insert", 45),
            ("F1", 112),
            ("F12", 123),
        ] {
            let key = parse(name).key;
            assert_eq!(key.key, name);
            assert_eq!(key.windows_virtual_key_code, vk, "{name}");
            assert_eq!(key.text, None, "{name} types nothing");
            assert_eq!(parse(name).modifier_bits, 0);
        }
    }

    #[test]
    fn named_keys_ignore_case_but_characters_do_not() {
        assert_eq!(parse("enter").key.key, "Enter");
        assert_eq!(parse("ARROWLEFT").key.key, "ArrowLeft");
        assert_eq!(parse("a").key.text.as_deref(), Some("a"));
        assert_eq!(parse("A").key.text.as_deref(), Some("A"));
        assert_eq!(parse("A").key.code, "KeyA");
        assert_eq!(parse("A").key.windows_virtual_key_code, 65);
    }

    #[test]
    fn space_has_two_names() {
        for name in ["Space", " "] {
            let key = parse(name).key;
            assert_eq!((key.key.as_str(), key.code.as_str()), (" ", "Space"));
            assert_eq!(key.text.as_deref(), Some(" "));
        }
    }

    #[test]
    fn digits_and_punctuation_use_the_us_layout() {
        let seven = parse("7").key;
        assert_eq!(
            (seven.code.as_str(), seven.windows_virtual_key_code),
            ("Digit7", 55)
        );
        let amp = parse("&").key;
        assert_eq!(
            (amp.code.as_str(), amp.text.as_deref()),
            ("Digit7", Some("&"))
        );
        let slash = parse("/").key;
        assert_eq!(
            (slash.code.as_str(), slash.windows_virtual_key_code),
            ("Slash", 191)
        );
        assert_eq!(parse("?").key.code, "Slash");
        assert_eq!(parse("\"").key.code, "Quote");
    }

    #[test]
    fn modifiers_are_pressed_in_order_and_make_a_bitmask() {
        let combo = parse("Control+Shift+R");
        let names: Vec<_> = combo.modifiers.iter().map(|k| k.key.as_str()).collect();
        assert_eq!(names, ["Control", "Shift"]);
        assert_eq!(combo.modifier_bits, modifier::CONTROL | modifier::SHIFT);
        assert_eq!(combo.key.code, "KeyR");
        assert_eq!(combo.key.text, None, "Control suppresses text");
        assert_eq!(combo.modifiers[0].location, 1);
        assert_eq!(combo.modifiers[0].code, "ControlLeft");
    }

    #[test]
    fn shift_types_the_shifted_character() {
        let combo = parse("Shift+a");
        assert_eq!(combo.key.key, "A");
        assert_eq!(combo.key.text.as_deref(), Some("A"));
        assert_eq!(parse("Shift+1").key.text.as_deref(), Some("!"));
        assert_eq!(parse("Shift+/").key.text.as_deref(), Some("?"));
        assert_eq!(parse("Shift+Tab").key.key, "Tab");
        assert_eq!(parse("Shift+Tab").modifier_bits, modifier::SHIFT);
    }

    #[test]
    fn alt_and_meta_and_control_or_meta() {
        assert_eq!(parse("Alt+x").modifier_bits, modifier::ALT);
        assert_eq!(parse("Meta+a").modifier_bits, modifier::META);
        assert_eq!(parse("Meta+a").key.text, None);
        assert_eq!(parse("ControlOrMeta+c").modifier_bits, modifier::CONTROL);
    }

    #[test]
    fn a_modifier_alone_is_a_key() {
        let combo = parse("Shift");
        assert!(combo.modifiers.is_empty());
        assert_eq!(combo.key.key, "Shift");
        assert_eq!(combo.modifier_bits, modifier::SHIFT);
    }

    #[test]
    fn plus_can_be_the_key() {
        assert_eq!(parse("+").key.key, "+");
        let combo = parse("Control++");
        assert_eq!(combo.key.key, "+");
        assert_eq!(combo.key.code, "Equal");
        assert_eq!(combo.modifier_bits, modifier::CONTROL);
    }

    #[test]
    fn repeated_modifiers_count_once() {
        let combo = parse("Shift+Shift+a");
        assert_eq!(combo.modifiers.len(), 1);
    }

    #[test]
    fn unknown_names_are_refused_with_examples() {
        assert_eq!(
            parse_combo("Ctrl").unwrap_err(),
            "Unknown key \"Ctrl\": use names like Enter, Tab, ArrowLeft, a, Control+Shift+R \
             (modifiers: Control, Shift, Alt, Meta, ControlOrMeta)."
        );
        let nested = parse_combo("Ctrl+a").unwrap_err();
        assert!(
            nested.starts_with("Unknown key \"Ctrl\" in \"Ctrl+a\""),
            "{nested}"
        );
        assert!(parse_combo("F13x").is_err());
        assert!(parse_combo("F0").is_err());
        assert!(parse_combo("F01").is_err());
        assert!(parse_combo("é").is_err());
        assert!(parse_combo("").is_err());
        assert!(parse_combo("Control+")
            .unwrap_err()
            .contains("empty key name"));
        assert!(parse_combo("Shift++a")
            .unwrap_err()
            .contains("empty key name"));
    }

    #[test]
    fn ordinary_keys_cannot_be_held_as_modifiers() {
        let error = parse_combo("a+b").unwrap_err();
        assert!(
            error.contains("\"a\" in \"a+b\" is not a modifier"),
            "{error}"
        );
    }

    #[test]
    fn characters_map_to_keys_for_typing() {
        assert_eq!(key_for_char('\n').map(|k| k.key), Some("Enter".into()));
        assert_eq!(key_for_char('Q').map(|k| k.code), Some("KeyQ".into()));
        assert_eq!(key_for_char('~').map(|k| k.code), Some("Backquote".into()));
        assert_eq!(key_for_char('é'), None);
        assert_eq!(key_for_char('\t'), None);
    }
}
