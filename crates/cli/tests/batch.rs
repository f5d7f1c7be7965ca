//! `gamewire batch --out` as a dataset: the Hive layout of Parquet, the
//! error records, a run killed part-way (SIGKILL) and run again with
//! `--resume`, and outputs that cannot be written.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

type TestResult = Result<(), Box<dyn Error>>;

const TABLES: &str = "header,players,rounds,damages";

fn gamewire(args: &[&str]) -> Result<Output, Box<dyn Error>> {
    Ok(Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()?)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn tmp(name: &str) -> Result<PathBuf, Box<dyn Error>> {
    let d = std::env::temp_dir().join(format!("gamewire-cli-batch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

fn text(p: &Path) -> Result<&str, Box<dyn Error>> {
    p.to_str()
        .ok_or_else(|| format!("{} is not UTF-8", p.display()).into())
}

/// The corpus CS2 demos.
fn cs2_demos() -> Result<Vec<PathBuf>, Box<dyn Error>> {
    let mut demos: Vec<PathBuf> = std::fs::read_dir(gamewire_corpus::path("cs2"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    demos.retain(|p| p.extension().is_some_and(|x| x == "dem"));
    demos.sort();
    if demos.is_empty() {
        return Err("no CS2 demo in the corpus".into());
    }
    Ok(demos)
}

/// `copies` copies of every corpus CS2 demo in `dir` (`<stem>_<k>.dem`),
/// and one demo cut at a third of its bytes (`cut.dem`).
fn demo_folder(dir: &Path, copies: usize) -> Result<usize, Box<dyn Error>> {
    std::fs::create_dir_all(dir)?;
    let demos = cs2_demos()?;
    for d in &demos {
        let stem = d.file_stem().ok_or("no stem")?.to_string_lossy();
        for k in 0..copies {
            std::fs::copy(d, dir.join(format!("{stem}_{k}.dem")))?;
        }
    }
    let data = std::fs::read(&demos[0])?;
    std::fs::write(dir.join("cut.dem"), &data[..data.len() / 3])?;
    Ok(demos.len() * copies + 1)
}

/// Every file under `dir` (relative path → bytes), temporary ones
/// included (a reader must never see one after a run).
fn tree(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, Box<dyn Error>> {
    fn walk(
        root: &Path,
        dir: &Path,
        out: &mut BTreeMap<String, Vec<u8>>,
    ) -> Result<(), Box<dyn Error>> {
        for e in std::fs::read_dir(dir)? {
            let p = e?.path();
            if p.is_dir() {
                walk(root, &p, out)?;
            } else {
                let rel = p.strip_prefix(root)?.to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p)?);
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out)?;
    Ok(out)
}

/// The demos of a Hive-partitioned table directory (`demo=<name>`).
fn partitions(table_dir: &Path) -> Result<Vec<String>, Box<dyn Error>> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(table_dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().join("part-0.parquet").is_file() {
            names.push(
                name.strip_prefix("demo=")
                    .ok_or("not a partition")?
                    .to_owned(),
            );
        }
    }
    names.sort();
    Ok(names)
}

#[test]
fn parquet_is_hive_partitioned_with_error_records() -> TestResult {
    let dir = tmp("hive")?;
    let demos = dir.join("demos");
    let n = demo_folder(&demos, 1)?;
    std::fs::write(demos.join("garbage.dem"), b"this is not a demo")?;
    std::fs::copy(&cs2_demos()?[1], demos.join("a b=c.dem"))?;
    let missing = dir.join("missing.dem");
    let out = dir.join("out");
    let run = gamewire(&[
        "batch",
        text(&demos)?,
        text(&missing)?,
        "--tables",
        TABLES,
        "--format",
        "parquet",
        "--out",
        text(&out)?,
        "-j",
        "2",
        "--keep-going",
    ])?;
    assert!(run.status.success(), "{}", stderr(&run));
    let err = stderr(&run);
    assert!(
        err.contains(&format!("{} demos ok (1 cut short), 2 failed", n + 1)),
        "{err}"
    );
    assert!(
        err.contains("skipped ") && err.contains("missing.dem"),
        "{err}"
    );
    for table in TABLES.split(',') {
        let names = partitions(&out.join(table))?;
        assert_eq!(names.len(), n + 1, "{table}: {names:?}");
        assert!(names.contains(&"cut".to_owned()), "{names:?}");
        // Percent-encoded as a URI segment.
        assert!(names.contains(&"a%20b%3Dc".to_owned()), "{names:?}");
        for name in &names {
            let file = out.join(table).join(format!("demo={name}/part-0.parquet"));
            assert!(std::fs::read(&file)?.starts_with(b"PAR1"));
        }
    }
    // The cut demo, the demo that is not one and the missing path: each has
    // its record, and no other demo does.
    assert_eq!(
        partitions(&out.join("_errors"))?,
        ["cut", "garbage", "missing"]
    );
    // No temporary file is left.
    assert!(tree(&out)?.keys().all(|k| !k.contains(".partial")));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn csv_keeps_one_file_per_demo_and_records_errors() -> TestResult {
    let dir = tmp("csv")?;
    let demos = dir.join("demos");
    let n = demo_folder(&demos, 1)?;
    std::fs::write(demos.join("garbage.dem"), b"this is not a demo")?;
    let out = dir.join("out");
    let run = gamewire(&[
        "batch",
        text(&demos)?,
        "--tables",
        "rounds",
        "--out",
        text(&out)?,
        "--keep-going",
    ])?;
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(std::fs::read_dir(out.join("rounds"))?.count(), n);
    let garbage = std::fs::read_to_string(out.join("_errors/garbage.csv"))?;
    let mut lines = garbage.lines();
    assert_eq!(lines.next(), Some("demo,path,kind,message,tick"));
    let row = lines.next().ok_or("no record")?;
    assert!(
        row.starts_with("garbage,") && row.contains(",not_a_demo,"),
        "{row}"
    );
    let cut = std::fs::read_to_string(out.join("_errors/cut.csv"))?;
    assert!(
        cut.contains(",cut,") && cut.contains("the demo is truncated"),
        "{cut}"
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// A batch killed with SIGKILL part-way leaves only complete files; run
/// again with `--resume`, it does the rest, and the dataset is the one an
/// uninterrupted run writes, byte for byte: no demo missing, none twice.
#[test]
fn a_killed_batch_resumed_equals_an_uninterrupted_one() -> TestResult {
    let dir = tmp("kill")?;
    let demos = dir.join("demos");
    let n = demo_folder(&demos, 12)?;
    let args = |out: &Path| -> Result<Vec<String>, Box<dyn Error>> {
        Ok([
            "batch",
            text(&demos)?,
            "--tables",
            TABLES,
            "--format",
            "parquet",
            "--out",
            text(out)?,
            "-j",
            "1",
        ]
        .map(String::from)
        .to_vec())
    };
    let whole = dir.join("whole");
    let run = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args(&whole)?)
        .output()?;
    assert!(run.status.success(), "{}", stderr(&run));
    let expected = tree(&whole)?;
    assert_eq!(partitions(&whole.join("rounds"))?.len(), n);

    let killed = dir.join("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args(&killed)?)
        .stderr(Stdio::null())
        .spawn()?;
    // Killed once a few demos are written, well before the end.
    let start = Instant::now();
    let damages = killed.join("damages");
    while (!damages.is_dir() || partitions(&damages)?.len() < 4)
        && start.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill()?;
    child.wait()?;
    let after_kill = tree(&killed)?;
    let done = partitions(&damages)?.len();
    assert!(
        done >= 4 && done < n,
        "{done} of {n} demos written before the kill"
    );
    // Every file a reader sees is complete: the one the whole run wrote.
    for (name, bytes) in &after_kill {
        if name.ends_with(".parquet") {
            assert!(expected.get(name) == Some(bytes), "{name} differs");
        }
    }

    let mut again = args(&killed)?;
    again.push("--resume".into());
    let run = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(&again)
        .output()?;
    assert!(run.status.success(), "{}", stderr(&run));
    let err = stderr(&run);
    assert!(err.contains("already written"), "{err}");
    let resumed = tree(&killed)?;
    assert_eq!(
        resumed.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &expected {
        assert!(resumed.get(name) == Some(bytes), "{name} differs");
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn an_output_that_cannot_be_written_is_an_error() -> TestResult {
    let dir = tmp("unwritable")?;
    let file = dir.join("a-file");
    std::fs::write(&file, b"")?;
    let demo = gamewire_corpus::path("cs2/14065.dem");
    let out = file.join("out");
    let run = gamewire(&[
        "batch",
        text(&demo)?,
        "--format",
        "parquet",
        "--out",
        text(&out)?,
    ])?;
    assert!(!run.status.success());
    let err = stderr(&run);
    assert!(
        err.starts_with("error: ") && err.contains("a-file/out"),
        "{err}"
    );
    // A table folder that cannot be made: the demo fails and is reported.
    let out = dir.join("out");
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("rounds"), b"")?;
    let run = gamewire(&[
        "batch",
        text(&demo)?,
        "--tables",
        "rounds",
        "--format",
        "parquet",
        "--out",
        text(&out)?,
        "--resume",
    ])?;
    assert!(!run.status.success());
    let err = stderr(&run);
    assert!(err.contains("rounds"), "{err}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// What `gamewire table TABLE DEMO` writes in `format`, as `batch` writes
/// it in its file of the demo: CSV and JSON Lines with a `demo` column
/// first (of `name`), Parquet as is.
fn table_output(
    table: &str,
    demo: &Path,
    name: &str,
    format: &str,
    dir: &Path,
) -> Result<Vec<u8>, Box<dyn Error>> {
    let file = dir.join(format!("{name}.{table}.{format}"));
    let mut args = vec!["table", table, text(demo)?];
    if table == "ticks" {
        args.extend(["--props", "X,health"]);
    }
    args.extend(["--format", format, "-o", text(&file)?]);
    let out = gamewire(&args)?;
    assert!(
        out.status.success(),
        "table {table} {name}: {}",
        stderr(&out)
    );
    let bytes = std::fs::read(&file)?;
    Ok(match format {
        "csv" => {
            let mut with_demo = Vec::new();
            for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
                with_demo.extend_from_slice(if i == 0 { b"demo," } else { name.as_bytes() });
                if i > 0 {
                    with_demo.push(b',');
                }
                with_demo.extend_from_slice(line);
            }
            with_demo
        }
        "jsonl" => {
            let mut with_demo = Vec::new();
            for line in bytes.split_inclusive(|&b| b == b'\n') {
                with_demo.extend_from_slice(format!("{{\"demo\":\"{name}\",").as_bytes());
                with_demo.extend_from_slice(line.get(1..).ok_or("an empty JSON line")?);
            }
            with_demo
        }
        _ => bytes,
    })
}

/// A Parquet file's rows, read back as one record batch (`None` without
/// rows).
fn parquet_rows(bytes: Vec<u8>) -> Result<Option<arrow_array::RecordBatch>, Box<dyn Error>> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))?
        .with_batch_size(1 << 24)
        .build()?;
    let mut batches = reader.collect::<Result<Vec<_>, _>>()?;
    if batches.len() > 1 {
        return Err(format!("{} record batches", batches.len()).into());
    }
    Ok(batches.pop())
}

/// Each demo's file of each table a batch writes holds the bytes `table`
/// writes for that demo alone (with the `demo` column in CSV and JSON
/// Lines), in every format (`ticks` as Parquet: the same rows, since `table`
/// writes it in row groups): for the corpus demos, read whole, and for a
/// looped demo above the size that is streamed, plain and gzip-compressed.
#[test]
fn batch_files_equal_each_demos_table() -> TestResult {
    let dir = tmp("equals-table")?;
    let demos_dir = dir.join("demos");
    std::fs::create_dir_all(&demos_dir)?;
    let demos = cs2_demos()?;
    for d in &demos {
        std::fs::copy(d, demos_dir.join(d.file_name().ok_or("no name")?))?;
    }
    let looped = demos_dir.join("looped.dem");
    let out = gamewire(&[
        "loop",
        "--times",
        "32",
        text(&gamewire_corpus::path("cs2/14155.dem"))?,
        text(&looped)?,
    ])?;
    assert!(out.status.success(), "loop: {}", stderr(&out));
    // Above the size read whole (4 MiB): streamed.
    assert!(std::fs::metadata(&looped)?.len() > 4 << 20);
    let raw = std::fs::read(&looped)?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &raw)?;
    std::fs::write(demos_dir.join("looped_gz.dem.gz"), gz.finish()?)?;
    drop(raw);
    let tables = ["kills", "rounds", "damages", "ticks"];
    let names: Vec<(PathBuf, String)> = std::fs::read_dir(&demos_dir)?
        .map(|e| -> Result<(PathBuf, String), Box<dyn Error>> {
            let p = e?.path();
            let name = p.file_name().ok_or("no name")?.to_string_lossy();
            let name = name
                .trim_end_matches(".gz")
                .trim_end_matches(".dem")
                .to_owned();
            Ok((p, name))
        })
        .collect::<Result<_, _>>()?;
    for format in ["csv", "jsonl", "parquet"] {
        let out_dir = dir.join(format!("out-{format}"));
        let out = gamewire(&[
            "batch",
            text(&demos_dir)?,
            "--tables",
            &tables.join(","),
            "--props",
            "X,health",
            "--format",
            format,
            "--out",
            text(&out_dir)?,
            "-j",
            "2",
        ])?;
        assert!(out.status.success(), "batch {format}: {}", stderr(&out));
        for (path, name) in &names {
            for table in tables {
                let file = if format == "parquet" {
                    out_dir
                        .join(table)
                        .join(format!("demo={name}/part-0.parquet"))
                } else {
                    out_dir.join(table).join(format!("{name}.{format}"))
                };
                let got = std::fs::read(&file)?;
                let expected = table_output(table, path, name, format, &dir)?;
                if format == "parquet" && table == "ticks" {
                    // `table ticks` writes Parquet in row groups as the parse
                    // goes, `batch` the whole table: the same rows and types.
                    assert_eq!(
                        parquet_rows(got)?,
                        parquet_rows(expected)?,
                        "{table} of {name} as {format}"
                    );
                    continue;
                }
                assert!(
                    got == expected,
                    "{table} of {name} as {format}: the batch's {} bytes differ from table's {}",
                    got.len(),
                    expected.len()
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
