import 'package:shop/cart/cart.dart';
import 'package:shop/model/item.dart' show Item;
import 'package:shop/util/strings.dart';
import 'package:shop/registry.dart' as reg;
import 'package:http/http.dart' as http;
import 'dart:io';

final fallback = Cart.empty();

void main() {
  var cart = Cart(Log());
  final Item pen = Item('pen', 2);
  cart.add(pen);
  reg.Registry.register(cart);
  print('done'.shout());
  showAll([cart]);
  http.get(Uri.parse('x'));
}

void showAll(List<Object> things) {
  for (final thing in things) {
    (thing as Cart).total();
    label(thing);
  }
}

String label(Object value) => value.toString();
