<?php
namespace Shop;

function total(array $items): int
{
    $n = 0;
    foreach ($items as $i) {
        $n += $i->price();
    }
    return $n;
}

class Cart
{
    private array $items = [];

    public function __construct()
    {
    }

    public function add(Base $item): self
    {
        $this->items[] = $item;
        return $this;
    }

    public function total(): int
    {
        return total($this->items);
    }

    public static function of(Base ...$items): self
    {
        $c = new Cart();
        foreach ($items as $i) {
            $c->add($i);
        }
        return $c;
    }

    public function call(string $method)
    {
        return $this->$method();
    }
}
