namespace Shop.Reports
{
    /// <summary>Static helpers, called qualified by the class.</summary>
    public static class Formats
    {
        public static string Pad(string text, int width) => text.PadRight(width);
    }
}
