class Item {
  final String name;

  Item(this.name);

  String describe() => name;

  int price() => 0;
}

String label(Item thing) => thing.describe();
