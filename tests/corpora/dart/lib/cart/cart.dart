import '../model/item.dart';
import '../util/strings.dart';
import 'base.dart';

class Cart extends Base with Counted implements Priced {
  final Log log;
  List<Item> items = [];

  Cart(this.log) {
    log.write('open');
  }

  Cart.empty() : this(Log());

  void add(Item item) {
    log.write(item.describe());
    items.add(item);
    this.total();
  }

  int total() {
    var sum = 0;
    items.forEach((i) => sum += i.price());
    return sum;
  }

  @override
  int price() => total();

  @override
  String describe() {
    final sb = StringBuffer();
    sb
      ..write(super.describe())
      ..write(count());
    return sb.toString();
  }
}

mixin Counted {
  int count() => 1;
}
