<?php
namespace Shop;

class Item extends Base
{
    public function price(): int
    {
        return strlen($this->name);
    }

    public function __toString(): string
    {
        return $this->label();
    }
}
