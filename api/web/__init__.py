"""The web page (GET /), its icon and the SVG charts it embeds (GET /charts/...)."""
