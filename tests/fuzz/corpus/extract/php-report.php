<?php
require_once __DIR__ . '/src/helpers.php';

use Shop\Cart;
use Shop\Item;

function print_line($thing)
{
    echo $thing->label(), "\n";
    echo $thing->describe(), "\n";
}

$cart = new Cart();
$cart->add(new Item('pen', 150));
print_line($cart);
echo $cart->total(), "\n";
