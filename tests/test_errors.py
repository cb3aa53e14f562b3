"""Every error smsim raises for bad input is an SmsimError (a ValueError), so the command line
catches them all and prints one line (smsim.errors)."""

import inspect

import smsim.errors as errors


def test_every_error_class_is_an_smsim_error_with_a_docstring():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__]
    assert len(classes) >= 12
    for cls in classes:
        assert issubclass(cls, errors.SmsimError) and issubclass(cls, ValueError), cls
        assert cls.__doc__, cls


def test_no_other_module_defines_an_error_class():
    from pathlib import Path

    import smsim

    for path in Path(smsim.__file__).parent.rglob("*.py"):
        if path.name == "errors.py":
            continue
        text = path.read_text()
        assert "(ValueError):" not in text and "(SmsimError):" not in text, path
