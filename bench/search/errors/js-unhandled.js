async function load() { throw new Error("upstream failed"); }
load();
