const el = null;
el.textContent = "hi";
