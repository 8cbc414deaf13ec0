import '../util/strings.dart';

class Item {
  final String name;
  final int cost;

  Item(this.name, this.cost);

  String describe() => name.shout();

  int price() => cost;
}
