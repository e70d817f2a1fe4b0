//! The Windows path rules as pure functions, run on every platform.

use super::*;

fn parts(p: &[&str]) -> Vec<String> {
    p.iter().map(|s| (*s).to_owned()).collect()
}

fn absolute(prefix: &str, p: &[&str]) -> WindowsPath {
    WindowsPath {
        prefix: Some(prefix.to_owned()),
        parts: parts(p),
    }
}

#[test]
fn drive_paths_take_either_separator_and_fold_the_letter() {
    for text in [
        r"C:\ws\src\main.rs",
        "c:/ws/src/main.rs",
        r"C:/ws\src\\main.rs",
    ] {
        assert_eq!(
            split(text).unwrap(),
            absolute("c:", &["ws", "src", "main.rs"]),
            "{text}"
        );
    }
    assert_eq!(split(r"D:\").unwrap(), absolute("d:", &[]));
    assert_eq!(split("D:").unwrap(), absolute("d:", &[]));
}

#[test]
fn unc_and_verbatim_prefixes_name_the_same_places() {
    let share = absolute(r"\\fs\proj", &["src", "a.rs"]);
    assert_eq!(split(r"\\FS\Proj\src\a.rs").unwrap(), share);
    assert_eq!(split(r"\\?\UNC\fs\proj\src\a.rs").unwrap(), share);
    assert_eq!(
        split(r"\\?\C:\ws\a.rs").unwrap(),
        absolute("c:", &["ws", "a.rs"])
    );
    assert_eq!(
        split("src/a.rs").unwrap(),
        WindowsPath {
            prefix: None,
            parts: parts(&["src", "a.rs"])
        }
    );
}

#[test]
fn paths_without_a_fixed_place_or_that_are_devices_are_refused() {
    for (text, why) in [
        (r"C:notes.txt", "current directory of drive C"),
        (r"\notes.txt", "rooted on whatever drive"),
        ("/notes.txt", "rooted on whatever drive"),
        (r"\\.\COM1", "device path"),
        (r"\\.\PhysicalDrive0", "device path"),
        (
            r"\\?\GLOBALROOT\Device\HarddiskVolume1",
            "names no drive or share",
        ),
        (r"\\server", "names a server and a share"),
        (r"\\server\", "names a server and a share"),
        (r"\\?\C:\ws\..\secret", "verbatim path"),
    ] {
        let err = split(text).expect_err(text);
        assert!(err.contains(why), "{text}: {err}");
    }
}

#[test]
fn reserved_device_names_are_refused_in_any_case_and_with_any_extension() {
    for name in [
        "CON",
        "con",
        "nul.txt",
        "Aux.tar.gz",
        "COM1",
        "lpt9.log",
        "com¹",
        "CONIN$",
        "prn ",
        "NUL .txt",
    ] {
        assert!(check_name(name).is_err(), "{name}");
    }
    for name in [
        "console",
        "nullable.rs",
        "com10",
        "lpt",
        "auxiliary",
        "icon.png",
        "con_fig",
    ] {
        assert_eq!(check_name(name), Ok(()), "{name}");
    }
}

#[test]
fn names_windows_would_read_as_another_file_are_refused() {
    for (name, why) in [
        (".env.", "dot or a space"),
        (".env ", "dot or a space"),
        ("secret.txt:hidden", "alternate data stream"),
        ("a.txt::$DATA", "alternate data stream"),
        ("GIT~1", "8.3 short name"),
        ("PROGRA~1", "8.3 short name"),
        ("secret~2.txt", "8.3 short name"),
        ("a|b", "no Windows file name"),
        ("what?", "no Windows file name"),
        ("star*", "no Windows file name"),
        ("tab\tname", "no Windows file name"),
    ] {
        let err = check_name(name).expect_err(name);
        assert!(err.contains(why), "{name}: {err}");
    }
    for name in [
        ".env",
        ".git",
        "~backup",
        "notes~",
        "a~b~c.txt",
        "long-name~1.txt",
        ".",
        "..",
    ] {
        assert_eq!(check_name(name), Ok(()), "{name}");
    }
}

#[test]
fn a_path_beneath_a_root_is_found_whatever_the_case_and_prefix() {
    let root = split(r"\\?\C:\Work\Proj").unwrap().normalized();
    let inside = split(r"c:\work\PROJ\src\..\lib\a.rs").unwrap().normalized();
    assert_eq!(beneath(&inside, &root), Some(parts(&["lib", "a.rs"])));
    assert_eq!(
        beneath(&split(r"C:\Work\Proj").unwrap(), &root),
        Some(Vec::new())
    );
    // A sibling with the root's name as its prefix, another drive, a climb out: not beneath.
    for outside in [
        r"C:\Work\Proj-evil\a.rs",
        r"D:\Work\Proj\a.rs",
        r"C:\Work\Proj\..\Other\a.rs",
        r"C:\Work",
    ] {
        let path = split(outside).unwrap().normalized();
        assert_eq!(beneath(&path, &root), None, "{outside}");
    }
    // A relative path is beneath nothing.
    assert_eq!(beneath(&split("Proj").unwrap(), &root), None);
    // A climb never goes above the prefix.
    assert_eq!(
        split(r"C:\..\..\Work\Proj\x").unwrap().normalized(),
        absolute("c:", &["Work", "Proj", "x"])
    );
}
