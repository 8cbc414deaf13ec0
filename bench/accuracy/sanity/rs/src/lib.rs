pub struct Cart {
    items: Vec<u32>,
}

pub trait Pricer {
    fn price(&self) -> u32;
}

impl Cart {
    pub fn new() -> Cart {
        Cart { items: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn add(&mut self, n: u32) {
        self.items.push(n);
    }
}

impl Pricer for Cart {
    fn price(&self) -> u32 {
        total(&self.items)
    }
}

fn total(xs: &[u32]) -> u32 {
    xs.iter().sum()
}

pub fn checkout(p: &dyn Pricer) -> u32 {
    let mut c = Cart::new();
    c.add(1);
    assert_eq!(c.len(), 1);
    p.price() + c
        .price()
}
