//! The sealing of approval states: RFC 4231's HMAC vectors, tampering, the wire layout.

use super::*;

/// A state good for an hour; the same one every time (its expiry is read once), so that two
/// calls compare equal whenever the clock ticks between them.
fn state() -> State {
    static EXPIRES: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    State {
        nonce: "ab12".into(),
        expires: *EXPIRES.get_or_init(|| now_secs() + 3600),
        principal: "alice".into(),
        tool: "bash".into(),
        arguments: arguments_hash(&serde_json::json!({"command": "ls"})),
        activity: String::new(),
        asked_at_ms: 0,
    }
}

/// RFC 4231, section 4: the HMAC-SHA-256 of test cases 1 to 7 (key, data, tag).
fn rfc_4231_cases() -> Vec<(Vec<u8>, Vec<u8>, &'static str)> {
    vec![
        (
            vec![0x0b; 20],
            b"Hi There".to_vec(),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
        ),
        (
            b"Jefe".to_vec(),
            b"what do ya want for nothing?".to_vec(),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        ),
        (
            vec![0xaa; 20],
            vec![0xdd; 50],
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
        ),
        (
            (0x01..=0x19).collect(),
            vec![0xcd; 50],
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
        ),
        // Truncated to 128 bits.
        (
            vec![0x0c; 20],
            b"Test With Truncation".to_vec(),
            "a3b6167473100ee06e0c796c2955552b",
        ),
        (
            vec![0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
        ),
        (
            vec![0xaa; 131],
            b"This is a test using a larger than block-size key and a larger than block-size \
              data. The key needs to be hashed before being used by the HMAC algorithm."
                .to_vec(),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
        ),
    ]
}

#[test]
fn hmac_matches_rfc_4231_test_cases() {
    let cases = rfc_4231_cases();
    assert_eq!(cases.len(), 7);
    for (i, (key, data, expected)) in cases.iter().enumerate() {
        let case = i + 1;
        let expected = hex::decode(expected).unwrap();
        let tag = hmac(key, data).finalize().into_bytes();
        assert_eq!(tag[..expected.len()], expected[..], "test case {case}");
        if expected.len() == tag.len() {
            assert!(hmac(key, data).verify_slice(&expected).is_ok(), "{case}");
        } else {
            // Case 5: its first 128 bits, which are not a whole tag.
            assert_eq!((case, expected.len()), (5, 16));
            assert!(hmac(key, data).verify_slice(&expected).is_err());
            assert!(hmac(key, data).verify_truncated_left(&expected).is_ok());
        }
    }
}

#[test]
fn hmac_tags_are_checked_whole() {
    let (key, data, expected) = &rfc_4231_cases()[1];
    let tag = hex::decode(expected).unwrap();
    assert!(hmac(key, data).verify_slice(&tag).is_ok());
    // Another message, another key, one bit of the tag changed, the tag cut short.
    let message = b"what do ya want for nothing!";
    assert!(hmac(key, message).verify_slice(&tag).is_err());
    assert!(hmac(b"Jeff", data).verify_slice(&tag).is_err());
    let mut flipped = tag.clone();
    flipped[31] ^= 1;
    assert!(hmac(key, data).verify_slice(&flipped).is_err());
    assert!(hmac(key, data).verify_slice(&tag[..31]).is_err());
    assert!(hmac(key, data).verify_slice(&[]).is_err());
}

#[test]
fn states_open_only_as_sealed_with_the_same_key() {
    let key = [7u8; 32];
    let sealed = seal(&key, &state());
    assert_eq!(open(&key, &sealed), Some(state()));
    assert_eq!(open(&[8u8; 32], &sealed), None);
    // One character of the body or the tag changed.
    for at in [5, sealed.len() - 3] {
        let mut altered = sealed.clone().into_bytes();
        altered[at] = if altered[at] == b'0' { b'1' } else { b'0' };
        assert_eq!(
            open(&key, &String::from_utf8(altered).unwrap()),
            None,
            "{at}"
        );
    }
    for junk in ["", "ta1.", "ta1.zz.zz", "rs1.a.b", "ta1.00"] {
        assert_eq!(open(&key, junk), None, "{junk}");
    }
}

/// A sealed state's body and tag.
fn parts(sealed: &str) -> (&str, &str) {
    let rest = sealed.strip_prefix("ta1.").expect("ta1.");
    rest.split_once('.').expect("body.tag")
}

#[test]
fn sealed_states_are_lowercase_hex_and_tagged_over_the_body() {
    let key = [7u8; 32];
    let sealed = seal(&key, &state());
    let (body, tag) = parts(&sealed);
    let lower_hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    assert!(lower_hex(body) && lower_hex(tag), "{sealed}");
    let payload = serde_json::to_vec(&state()).unwrap();
    assert_eq!(hex::decode(body).unwrap(), payload);
    let expected = hmac(&key, body.as_bytes()).finalize().into_bytes();
    assert_eq!(tag, hex::encode(expected));
}

#[test]
fn sealed_states_keep_their_layout() {
    // `ta1.`, the state's JSON in hex, `.`, the HMAC-SHA256 of that hex under the key.
    let fixed = State {
        expires: 4_102_444_800,
        ..state()
    };
    let sealed = concat!(
        "ta1.",
        "7b226e6f6e6365223a2261623132222c2265787069726573223a343130323434343830302c22",
        "7072696e636970616c223a22616c696365222c22746f6f6c223a2262617368222c2261726775",
        "6d656e7473223a2234636632393631316136363933343836326632396163666363383137653330",
        "623930356331616237336435653635383331343133656236623435346434396462227d",
        ".15fb052e8df8464825682706ce9539dc322d9d290b47fa9dbd174c8fd78a418b",
    );
    assert_eq!(seal(&[7u8; 32], &fixed), sealed);
    assert_eq!(open(&[7u8; 32], sealed), Some(fixed));
}

#[test]
fn a_tampered_state_is_refused() {
    let key = [7u8; 32];
    let sealed = seal(&key, &state());
    let (body, tag) = parts(&sealed);
    // Every hex digit of the body and of the tag, changed in turn.
    for at in 4..sealed.len() {
        if sealed.as_bytes()[at] == b'.' {
            continue;
        }
        let mut altered = sealed.clone().into_bytes();
        altered[at] = if altered[at] == b'f' { b'e' } else { b'f' };
        let altered = String::from_utf8(altered).unwrap();
        assert_eq!(open(&key, &altered), None, "{altered}");
    }
    // Another state (another principal) under the original tag.
    let forged = State {
        principal: "mallory".into(),
        ..state()
    };
    let forged_body = hex::encode(serde_json::to_vec(&forged).unwrap());
    assert_eq!(open(&key, &format!("ta1.{forged_body}.{tag}")), None);
    // The tag cut short, lengthened, or missing; the body cut short.
    for altered in [
        format!("ta1.{body}.{}", &tag[..32]),
        format!("ta1.{body}.{}", &tag[..tag.len() - 2]),
        format!("ta1.{body}.{tag}00"),
        format!("ta1.{body}."),
        format!("ta1.{body}"),
        format!("ta1.{}.{tag}", &body[..body.len() - 2]),
        format!("ta1.{body}.+{}", &tag[1..]),
    ] {
        assert_eq!(open(&key, &altered), None, "{altered}");
    }
    // Untouched, it still opens.
    assert_eq!(open(&key, &sealed), Some(state()));
}

#[test]
fn argument_hashes_ignore_key_order_only() {
    let a = arguments_hash(&serde_json::json!({"a": 1, "b": [1, {"y": 2, "x": 1}]}));
    let b = arguments_hash(&serde_json::json!({"b": [1, {"x": 1, "y": 2}], "a": 1}));
    let c = arguments_hash(&serde_json::json!({"b": [{"x": 1, "y": 2}, 1], "a": 1}));
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[tokio::test]
async fn a_nonce_is_used_once_in_memory_and_in_a_directory() {
    let dir = std::env::temp_dir().join(format!("toolsmith-used-{}", std::process::id()));
    for used in [
        UsedApprovals::Memory(Mutex::default()),
        UsedApprovals::Dir({
            std::fs::create_dir_all(&dir).unwrap();
            dir.clone()
        }),
    ] {
        assert!(used.consume("abcd", now_secs() + 60).await);
        assert!(!used.consume("abcd", now_secs() + 60).await);
        assert!(used.consume("abce", now_secs() + 60).await);
        assert!(!used.consume("../etc", now_secs() + 60).await);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
