"""What people read: the analysis tables (``tables``), generated findings (``findings``),
figures (``plots``), the balance report page (``outline``: its sections and their order; the section
builders ``sections``, ``strength``, ``studies``; ``render``: Markdown and HTML; ``write``: the files)
and the terminal tables (``terminal``).

May import: every layer below (facts, ``engine``, ``policies``, ``play``, ``runs``, ``studies``).
Never ``cli``.
"""
