<?php
namespace Shop;

/** Something the shop keeps. */
abstract class Model
{
    public function save()
    {
        $this->validate();
        return true;
    }

    protected function validate()
    {
    }

    public static function make()
    {
        return new static();
    }
}
