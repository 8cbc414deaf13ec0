<?php
namespace Shop;

abstract class Base
{
    protected string $name;

    public function __construct(string $name)
    {
        $this->name = strtolower($name);
    }

    abstract public function price(): int;

    public function label(): string
    {
        return $this->name . ': ' . $this->price();
    }
}
