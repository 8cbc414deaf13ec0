exports.measure = function measure(s) {
  return s.length;
};
