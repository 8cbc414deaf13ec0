const n = 1;
n = 2;
