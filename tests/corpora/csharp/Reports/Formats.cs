namespace Shop.Reports
{
    /// <summary>Static helpers, called qualified by the class.</summary>
    public static class Formats
    {
        /// <summary>Made once for the class: the call is its initialiser's.</summary>
        public static readonly string Divider = Rule(40);

        public static string Pad(string text, int width) => text.PadRight(width);

        public static string Rule(int width) => new string('-', width);
    }
}
