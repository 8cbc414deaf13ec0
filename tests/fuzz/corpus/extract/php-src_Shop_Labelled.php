<?php
namespace Shop;

interface Labelled
{
    public function label();
}
