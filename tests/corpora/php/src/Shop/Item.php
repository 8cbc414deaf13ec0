<?php
namespace Shop;

class Item extends Model implements Labelled
{
    use Loggable;

    public function __construct($name, $cents)
    {
        $this->name = $name;
        $this->cents = $cents;
    }

    public function label()
    {
        return $this->describe();
    }

    public function describe()
    {
        $this->log('describe');
        return $this->name . ' ' . format_price($this->cents);
    }

    public function save()
    {
        parent::save();
        self::make();
    }
}
