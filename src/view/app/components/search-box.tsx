/**
 * A page's search box: labelled "Search", the element `/` focuses (`data-search`); every
 * keystroke is passed on (the list asks the server again, aborting the previous question).
 */
export function SearchBox(props: {
  value: string;
  placeholder: string;
  onInput: (value: string) => void;
}) {
  return (
    <label class="filter filter-search">
      <span>Search</span>
      <input
        type="search"
        data-search
        value={props.value}
        placeholder={props.placeholder}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
    </label>
  );
}
