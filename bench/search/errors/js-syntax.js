const a = { b: 1, };
if (a.b) {
  console.log("x";
}
