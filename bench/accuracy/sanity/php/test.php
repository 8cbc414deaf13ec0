<?php
require __DIR__ . '/src/Shop/Cart.php';

use Shop\Cart;
use Shop\Gift;
use Shop\Item;

$cart = Cart::of(new Item('Book'), new Gift('Card'));
printf("%d\n", $cart->total());
echo $cart->call('total'), "\n";
$labels = array_map(fn($i) => $i->label(), [new Item('Pen')]);
echo count($labels), ' ', (string) new Item('Cup'), "\n";
