use holi::symbolic::{check, CheckOptions};
#[test]
fn dao_smoke() {
    let loaded = holi::frontend::load(std::path::Path::new("examples/dao.holi"), false).unwrap();
    let r = check(&loaded.program, &CheckOptions { k: 3, l: 2, ..Default::default() });
    for c in &r.counterexamples { println!("{} -- {:?}", c.trace, c.model); }
    println!("{:?} {} {:?}", r.verdict, r.failing_traces, r.stats);
}
