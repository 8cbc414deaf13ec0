	namespace Shop.Models
{
    public class Item : IPriced
    {
        private readonly string name;
        private readonly long cents;

        public Item(string name, long cents)
        {
            this.name = name;
            this.cents = cents;
        }

        public long Price() => cents;

        public string Label() => name.ToUpperInvariant();

        public string Describe()
        {
            return string.Format("{0} at {1}", name, Price());
        }
    }
}
