<?php
namespace Shop;

use Shop\Pricing\Calculator as Calc;

class Cart
{
    private $items = [];

    public function add(Item $item)
    {
        $this->items[] = $item;
        $item->label();
    }

    public function total()
    {
        $calc = new Calc();
        return $calc->sum(array_map(fn($i) => $i->cents, $this->items));
    }

    public function describe()
    {
        return count($this->items) . ' items, ' . format_price($this->total());
    }
}
