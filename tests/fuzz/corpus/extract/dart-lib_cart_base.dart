abstract class Base {
  String describe() => 'base';
}

abstract class Priced {
  int price();
}
