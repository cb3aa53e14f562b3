"""What people read: the analysis tables (``tables``), generated findings (``findings``),
figures (``plots``), the balance report page (``page``) and the terminal tables (``terminal``).

May import: every layer below (facts, ``engine``, ``policies``, ``play``, ``runs``, ``studies``).
Never ``cli``.
"""
