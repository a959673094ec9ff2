//! What Linux says about a process.

/// Peak resident set size (`VmHWM` of `/proc/<pid>/status`) in MiB; `None` once the process
/// is gone or where `/proc` has no such field.
pub fn peak_rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_own_peak() {
        let mib = super::peak_rss_mib(std::process::id()).expect("own VmHWM");
        assert!(mib > 0.0);
    }
}
