namespace Shop.Reports
{
    /// <summary>Prints a line after a pattern; its method names are also Report's.</summary>
    public class Printer
    {
        private readonly string pattern;

        public Printer(string pattern)
        {
            this.pattern = pattern;
        }

        public string GetPattern() => pattern;

        public string Format(string text) => string.Format(pattern, text);

        /// <summary>The only method named Remove in the repository.</summary>
        public bool Remove(string key) => key == nameof(pattern);
    }
}
