function total() { return itemz.length; }
total();
