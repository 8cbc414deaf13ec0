<?php
namespace Legacy;

class Item
{
    public function label()
    {
        return strtoupper($this->describe());
    }

    public function describe()
    {
        return 'legacy';
    }
}
