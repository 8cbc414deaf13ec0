function run(cb) { return cb(1); }
run("done");
